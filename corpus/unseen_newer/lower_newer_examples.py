"""Lower the examples/ files changed by open PRs on top of a35008a4 (see lower_newer.py) with corpus/lower_field.py,
unchanged except for an explicit arch table (as corpus/unseen_users/lower_users.py does). Scratch tree:
/tmp/tl-newer-ex/examples = `git archive a35008a4 examples` + the PR versions of the files below.

    PYTHONPATH=/work/main nice -n 15 python corpus/unseen_newer/lower_newer_examples.py --examples /tmp/tl-newer-ex/examples \
        --out /tmp/newer-ex-out --jobs 1 --timeout 90
then the .tir not byte-identical to any .tir under corpus/ are copied into corpus/unseen_newer/ (README.md).
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import lower_field  # noqa: E402

MIRROR = "/work/.mirror/tile-ai+tilelang/repo"
SCRATCH = "/tmp/tl-newer-ex"
ARCHS = {"deepseek_v4/act_quant.py": (["sm_90a"], "b3f332a4f"),  # PR 2847 (fp8)
         "aws/gemm.py": (["sm_80", "sm_90a"], "6bbc5f11d"),  # PR 3059
         "aws/flash_attention.py": (["sm_80", "sm_90a"], "6bbc5f11d")}


def build_scratch():
    if not os.path.isdir(SCRATCH):
        os.makedirs(SCRATCH)
        subprocess.run(f"git -C {MIRROR} archive a35008a42531c62b976ae4cec3855d4383db0f3c examples | tar -x -C {SCRATCH}",
                       shell=True, check=True)
    for rel, (_, ref) in ARCHS.items():
        dst = os.path.join(SCRATCH, "examples", rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(subprocess.run(["git", "-C", MIRROR, "show", f"{ref}:examples/{rel}"], check=True,
                                   capture_output=True).stdout)


def classify(rel, src):
    if rel in ARCHS:
        return list(ARCHS[rel][0]), None
    return [], "not selected for corpus/unseen_newer"


lower_field.classify = classify
lower_field.children_through(os.path.abspath(__file__))

if __name__ == "__main__":
    if "--child" not in sys.argv:
        build_scratch()
    sys.exit(lower_field.main())
