"""Lower the examples/ files that open TileLang pull requests (and one maintainer branch) add or change,
which are NOT in main at a35008a4, with corpus/lower_field.py unchanged except for the file selection
(lower_field.classify still picks each file's archs), as corpus/unseen_newer/lower_newer_examples.py does.

main of the mirror IS a35008a4 (no newer commit), so "examples changed upstream after a35008a4" on main is
empty; PRs containing a35008a4 (2847, 3059) were already probed by corpus/unseen_newer. This takes the rest:
for each open PR ref refs/pull/N/merge, the examples/ files the PR itself changes (`git diff N/merge^1
N/merge -- examples/`) whose blob is not in a35008a4's examples/ tree (REFS), and a second tier of closed,
unmerged PR heads (REFS2; files renamed STEM__prN.py).

Scratch tree: /tmp/tl-upstream-ex/examples = `git archive a35008a4 examples` + every examples/ file each
selected ref changes (its helpers too), from that ref.

    PYTHONPATH=/work/main:/tmp/tl-upstream-ex nice -n 10 python corpus/unseen_upstream/lower_upstream.py \
        --examples /tmp/tl-upstream-ex/examples --out /tmp/upstream-ex-out --jobs 1 --timeout 240
    (the second tier was run afterwards with `--only __pr --keep --timeout 300`)
then the .tir not byte-identical to any .tir under corpus/ are copied into corpus/unseen_upstream/ (README.md).
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import lower_field  # noqa: E402

MIRROR = "/work/.mirror/tile-ai+tilelang/repo"
BASE = "a35008a42531c62b976ae4cec3855d4383db0f3c"
SCRATCH = "/tmp/tl-upstream-ex"
# ref -> (files under examples/ to run; None: every .py the ref changes)
REFS = {
    "refs/pull/2171/merge": ["gemm_fp4/example_gemm_a8w4.py", "gemm_fp4/example_gemm_fp4.py"],
    "refs/pull/2253/merge": ["sage_attention_sm120/sageattn3_alignment.py", "sage_attention_sm120/compare_cuda.py"],
    "refs/pull/2316/merge": ["gemm_sm100/gemm_tcgen5mma_ws.py", "gemm_sm100/gemm_tcgen5mma_ws_clc.py",
                             "gemm_sm100/gemm_tcgen5mma_ws_persistent.py"],
    "refs/pull/2360/merge": ["flash_attention_sm100/gqa_fwd_bshd.py", "flash_attention_sm100/gqa_fwd_bshd_pipelined_1sm.py",
                             "flash_attention_sm100/gqa_fwd_bshd_pipelined_2sm.py",
                             "grouped_gemm/example_grouped_gemm_fwd_sm100.py",
                             "grouped_gemm/example_grouped_gemm_fwd_sm100_fp8.py",
                             "grouped_gemm/example_grouped_gemm_fwd_sm100_fp8_to_bf16.py",
                             "grouped_gemm/example_grouped_gemm_fwd_sm90_fp8_to_bf16.py"],
    "refs/pull/2747/merge": ["gemm/example_gemm_autotune_pipeline_strategy.py"],
    "refs/pull/2763/merge": ["inductor/graph_trace_example.py"],
    "refs/pull/2774/merge": ["deepseek_deepgemm/mqa_logits_sm100.py"],
    "refs/heads/pr-2364-main-merge": ["gemm_sm120/sm120_nvfp4_blockscaled_gemm.py"],
}
# compare_cuda.py and sageattn3_alignment.py (PR 2253) import the official SageAttention3 CUDA extensions (their
# reference) before they compile the kernel: this driver, written into the scratch tree, does only the compile
# step of compare_cuda.py's _run_case, for its default case (256, 256, 256, 1) (q and kv both two tiles).
DRIVER = "sage_attention_sm120/upstream_probe_driver.py"
DRIVER_TEXT = '''"""Driver for corpus/unseen_upstream (not part of PR 2253): compare_cuda.py's _run_case compile step."""
import tilelang
from examples.sage_attention_sm120.compare_cuda import _DEFAULT_CASES
from examples.sage_attention_sm120.sageattn3_fp4 import sage3_packed_fp4_attention_raw_kernel

query_tokens, kv_tokens, valid_k_tokens, heads = _DEFAULT_CASES[2]
factory = sage3_packed_fp4_attention_raw_kernel
factory.func.mode = "lazy"
program = factory.func(query_tokens, kv_tokens, valid_k_tokens, heads, heads, 128)
kernel = tilelang.compile(program, out_idx=[7, 8], execution_backend="nvrtc", target={"kind": "cuda", "arch": "sm_120a"})
kernel.get_profiler()
'''
# mqa_logits_sm100.py (PR 2774) runs fp8 then fp4; on meta tensors its fp8 check (.item()) stops it before the
# fp4 kernel is compiled: this driver runs the example's own run_example for fp4 alone (its default config).
DRIVER2 = "deepseek_deepgemm/upstream_probe_mqa_fp4.py"
DRIVER2_TEXT = '''"""Driver for corpus/unseen_upstream (not part of PR 2774): mqa_logits_sm100.py's main() for --dtype fp4."""
from mqa_logits_sm100 import MQALogitsConfig, run_example

run_example(MQALogitsConfig(seq_len=2048, seq_len_kv=4096, logits_dtype="float32", seed=0), "fp4", check=False)
'''
REFS["refs/pull/2253/merge"].append(DRIVER)
REFS["refs/pull/2774/merge"].append(DRIVER2)
SELECTED = {f: ref for ref, files in REFS.items() for f in files}
# Second tier: closed, unmerged PR heads (no merge ref) from 2026-06 on whose example versions are not in
# a35008a4 and touch asynchronous Blackwell / Hopper kernels. Several change the same path (or a tier-one path),
# so each selected file goes in as STEM__prN.py beside the original (the TIR does not name the file); the other
# .py files the PR changes under examples/ (its helpers) go in under their own names.
REFS2 = {
    # (its attention_kernel_1sm_d256.py / _nosplit.py are wrappers of attention_kernel_1sm with other configs: not run)
    "refs/pull/2332/head": ["flash_attention_sm100/attention_kernel_1sm.py", "flash_attention_sm100/attention_kernel_2sm.py"],
    "refs/pull/2423/head": ["gemm_sm100/gemm_tcgen5mma_ws_clc.py"],
    "refs/pull/2785/head": ["gemm_sm100/gemm_tcgen5mma_ws.py", "gemm_sm100/gemm_tcgen5mma_ws_clc.py",
                            "gemm_sm100/gemm_tcgen5mma_ws_persistent.py"],
    "refs/pull/2553/head": ["deepseek_v4/fp8_fp4_gemm_1d1d_sm100.py", "gemm_sm100/gemm_tcgen5mma_ws_persistent.py"],
    "refs/pull/2324/head": ["gemm_fp4/example_gemm_fp4_sm100.py", "gemm_fp4/example_gemm_a8w4_sm100.py",
                            "gemm_fp4/example_fusedmoe_nvfp4_sm100.py", "gemm_fp4/example_gemm_fp4_sm120.py"],
    "refs/pull/2452/head": ["warp_specialize/example_warp_specialize_flashmla.py"],
    "refs/pull/2461/head": ["flash_attention/example_gqa_bwd_tma_reduce_varlen.py"],
}


def tier2_name(path, ref):
    stem, ext = os.path.splitext(path)
    return f"{stem}__pr{ref.split('/')[2]}{ext}"


for _ref, _files in REFS2.items():
    for _f in _files:
        SELECTED[tier2_name(_f, _ref)] = _ref
# Where lower_field.classify's guess is not the arch the file targets: PR 2171 is "Add SM120 FP4 and A8W4 GEMM
# support" (mma.sync fp4 is sm_120's); the sm90 grouped GEMM names sm100 only in its docstring.
ARCH_OVERRIDE = {"gemm_fp4/example_gemm_a8w4.py": ["sm_120"], "gemm_fp4/example_gemm_fp4.py": ["sm_120"],
                 "grouped_gemm/example_grouped_gemm_fwd_sm90_fp8_to_bf16.py": ["sm_90a"]}
ARCH_OVERRIDE[DRIVER2] = ["sm_100a"]  # its text names no kernel: the file it drives is sm_100a


def git(*a):
    return subprocess.run(["git", "-C", MIRROR, *a], check=True, capture_output=True).stdout


def build_scratch():
    if os.path.isdir(SCRATCH):
        write_driver()
        add_tier2()
        return
    os.makedirs(SCRATCH)
    subprocess.run(f"git -C {MIRROR} archive {BASE} examples | tar -x -C {SCRATCH}", shell=True, check=True)
    for ref in REFS:
        base = git("merge-base", BASE, ref).decode().strip() if ref.startswith("refs/heads/") else ref + "^1"
        for line in git("diff", "--no-renames", "--name-status", base, ref, "--", "examples/").decode().splitlines():
            st, path = line.split("\t", 1)
            if st == "D" or "cdna4" in path:
                continue
            dst = os.path.join(SCRATCH, path)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "wb") as f:
                f.write(git("show", f"{ref}:{path}"))


    write_driver()
    add_tier2()


def add_tier2():
    tier1 = {f"examples/{f}" for files in REFS.values() for f in files}
    for ref, files in REFS2.items():
        base = git("merge-base", BASE, ref).decode().strip()
        for line in git("diff", "--no-renames", "--name-status", base, ref, "--", "examples/").decode().splitlines():
            st, path = line.split("\t", 1)
            rel = path[len("examples/"):]
            if st == "D" or not path.endswith(".py"):
                continue
            if rel in files:
                dst = os.path.join(SCRATCH, "examples", tier2_name(rel, ref))
            elif path in tier1 or rel in SELECTED:
                continue
            else:
                dst = os.path.join(SCRATCH, path)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "wb") as f:
                f.write(git("show", f"{ref}:{path}"))


def write_driver():
    for rel, text in ((DRIVER, DRIVER_TEXT), (DRIVER2, DRIVER2_TEXT)):
        with open(os.path.join(SCRATCH, "examples", rel), "w") as f:
            f.write(text)


_classify = lower_field.classify


def classify(rel, src):
    if rel in ARCH_OVERRIDE:
        return list(ARCH_OVERRIDE[rel]), None
    if rel in SELECTED:
        return _classify(rel, src)
    return [], "not selected for corpus/unseen_upstream"


lower_field.classify = classify
lower_field.children_through(os.path.abspath(__file__))

if __name__ == "__main__":
    if "--child" not in sys.argv:
        build_scratch()
    sys.exit(lower_field.main())
