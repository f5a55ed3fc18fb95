"""Lower TileLang test files that are NEWER than the field corpus's commit a35008a4 (corpus/unseen_newer/).

The newest tile-ai/tilelang snapshot's main branch IS a35008a4 (nothing newer on main), so the newer files are
taken from the open pull-request merge refs of that snapshot that contain a35008a4 (refs/pull/N/merge, i.e.
a35008a4 + the PR): FILES below names, per test file, the ref it is taken from. The scratch tree
/tmp/tl-newer/testing/python is `git archive a35008a4 testing` with those files overlaid (`git show REF:PATH`).

Reuses corpus/lower_unseen.py's --wide machinery unchanged; this wrapper only points TESTING at the scratch tree,
restricts the file list to FILES, does not skip tests corpus/unseen already has, and dedups against every
.tir under corpus/.

    PYTHONPATH=/work/main nice -n 15 python corpus/unseen_newer/lower_newer.py --wide --out corpus/unseen_newer --timeout 45
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import lower_unseen  # noqa: E402

MIRROR = "/work/.mirror/tile-ai+tilelang/repo"
SCRATCH = "/tmp/tl-newer"
FILES = {  # rel under testing/python -> ref (commit) it is taken from
    "issue/test_tilelang_issue_pipeline_transitive_copy_dependencies.py": "ccd957f6c",  # PR 2822
    "issue/test_tilelang_issue_thread_sync_cross_thread_waw.py": "ceb842f9d",  # PR 2821
    "transform/test_tilelang_transform_thread_sync.py": "ceb842f9d",  # PR 2821
    "issue/test_tilelang_issue_2759.py": "2dc421e8d",  # PR 2926
    "transform/test_tilelang_transform_pipeline_planning.py": "ccd957f6c",  # PR 2822
    "issue/test_tilelang_issue_2568.py": "09bd9daa2",  # PR 2895
    "issue/test_tilelang_issue_2443.py": "5ae6bfdac",  # PR 2471
    "issue/test_tilelang_issue_2994.py": "d3f4446d9",  # PR 3036
    "language/test_tilelang_language_construct_strides.py": "3f1c10dce",  # PR 3016
    "transform/test_tilelang_transform_loop_vectorize.py": "8599a54c0",  # PR 3066
    "transform/test_tilelang_transform_layout_inference.py": "dbd9f893f",  # PR 3064
    "language/test_tilelang_language_fp8.py": "b3f332a4f",  # PR 2847
    "transform/test_tilelang_transform_materialize_ws_schedule.py": "6bbc5f11d",  # PR 3059
    "transform/test_tilelang_transform_auto_schedule.py": "6bbc5f11d",  # PR 3059
}


def build_scratch():
    if not os.path.isdir(SCRATCH):
        os.makedirs(SCRATCH)
        subprocess.run(f"git -C {MIRROR} archive a35008a42531c62b976ae4cec3855d4383db0f3c testing | tar -x -C {SCRATCH}",
                       shell=True, check=True)
    for rel, ref in FILES.items():
        dst = os.path.join(SCRATCH, "testing/python", rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(subprocess.run(["git", "-C", MIRROR, "show", f"{ref}:testing/python/{rel}"], check=True,
                                   capture_output=True).stdout)


lower_unseen.TESTING = os.path.join(SCRATCH, "testing/python")
lower_unseen.ensure_testing = lambda: None
lower_unseen.wide_files = lambda: list(FILES)
lower_unseen.unseen_done = lambda: {}
lower_unseen.EXISTING_CORPORA = sorted(d for d in os.listdir(os.path.dirname(HERE))
                                       if os.path.isdir(os.path.join(os.path.dirname(HERE), d)) and d != "unseen_newer")

if __name__ == "__main__":
    if "--child" not in sys.argv:
        build_scratch()
    sys.exit(lower_unseen.main())
