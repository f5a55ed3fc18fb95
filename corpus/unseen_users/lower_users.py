"""Lower TileLang kernels written by TileLang *users* (public GitHub repositories other than tile-ai/tilelang)
with corpus/lower_field.py's machinery, unchanged: this wrapper only
  * replaces lower_field.classify with an explicit per-file arch table (ARCHS below: which files of the
    scratch tree are run and for which archs; every other file is skipped),
  * adds "megatron" (and cuequivariance / e3nn, which tilelang-mace imports for its references) to the
    absent-package stand-ins (lower_field.MISSING_MODULES): only the TileLang kernel
    files of Megatron-LM's ops/ folder are in the scratch tree, and the host-side helpers they import
    (megatron.core.utils.round_up_to_nearest_multiple) get lower_field's stand-in, as an absent package would,
  * in the children, makes `tilelang.intrinsics` (a module path of older TileLang releases, which every
    tilelang-mace file imports `make_mma_swizzle_layout` from, and none of them uses) name TileLang 0.1.15's
    `tilelang.cuda.intrinsics`, where that function now lives,
  * makes the children run through this file too (run_child's `script`), as unseen_sm8x/lower_sm8x.py does,
then calls lower_field.main() with the same command line.

The scratch tree (--examples) is /tmp/users-src/examples/<repo>/... (each repository's own relative layout, so
its local imports work), built with the driver files of corpus/unseen_users/drivers/ by
`sh corpus/unseen_users/make_scratch.sh` (see README.md):

    nice -n 15 python corpus/unseen_users/lower_users.py --examples /tmp/users-src/examples \
        --out corpus/unseen_users --jobs 1 --timeout 300 --resume
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import lower_field  # noqa: E402

GENERIC = ["sm_80", "sm_90a"]
HOPPER = ["sm_90a"]

# rel path under --examples -> archs. Files not named here are skipped.
ARCHS = {
    # deepseek-ai/DeepSeek-V3.2-Exp: fp8 act_quant / fp8_gemm / fp8_index (inference/kernel.py), via a driver
    "dsv32/drv_dsv32_kernels.py": HOPPER,
    "dsv32/drv_dsv32_act_quant_ue8m0.py": HOPPER,
    # NVIDIA/Megatron-LM: DSA sparse MLA fwd/bwd and indexer kernels (bf16), via a driver
    "megatron_lm/drv_megatron_dsa.py": GENERIC,
    # ppppqp/qwen-in-tilelang: Qwen inference kernels (fp16), via a driver
    "qwen_in_tilelang/drv_qwen_kernels.py": GENERIC,
    # impecme/Tilelang-Learning: learning-lab kernels, via a driver
    "tilelang_learning/drv_tl_learning_gemm.py": GENERIC,
    "tilelang_learning/drv_tl_learning_lab.py": GENERIC,
    "tilelang_learning/drv_tl_learning_starter.py": GENERIC,
    # shuminghu/tilelang-bench: the GEMM task solutions, via a driver
    "tilelang_bench/drv_tlbench_perf_gemm_fp16.py": GENERIC,
    "tilelang_bench/drv_tlbench_perf_gemm_bf16.py": GENERIC,
    "tilelang_bench/drv_tlbench_gemm_optimize.py": GENERIC,
    "tilelang_bench/drv_tlbench_debug_gemm_noclear.py": GENERIC,
    # HomleTree/tilelang-mace: MACE tensor-product kernels (own __main__ blocks)
    "tilelang_mace/tilelang-mace/FullyConnectedTensorProduct/tilelang_example_fctp_backward.py": GENERIC,
    "tilelang_mace/tilelang-mace/FullyConnectedTensorProduct/tilelang_example_fctp_backward_4paths.py": GENERIC,
    "tilelang_mace/tilelang-mace/FullyConnectedTensorProduct/tilelang_example_fctp_forward_1path.py": GENERIC,
    "tilelang_mace/tilelang-mace/FullyConnectedTensorProduct/tilelang_example_fctp_forward_4paths.py": GENERIC,
    "tilelang_mace/tilelang-mace/FullyConnectedTensorProduct/tilelang_example_fctp_test.py": GENERIC,
    "tilelang_mace/tilelang-mace/ChannelWiseTensorProduct/CWTP.py": GENERIC,
    "tilelang_mace/tilelang-mace/ChannelWiseTensorProduct/CWTP_one_path.py": GENERIC,
    "tilelang_mace/tilelang-mace/EquiLinear/EquiLinear_forward.py": GENERIC,
    "tilelang_mace/tilelang-mace/EquiLinear/EquiLinear_backward.py": GENERIC,
    "tilelang_mace/tilelang-mace/SymmetricTensorContraction/stc_forward.py": GENERIC,
    "tilelang_mace/tilelang-mace/SymmetricTensorContraction/stc_backward.py": GENERIC,
    # tile-ai/tilelang-benchmark: Hopper benchmark kernels (own __main__ blocks)
    "tilelang_benchmark/hopper_benchmark/blocksparse_attention/1.tilelang-benchmark/benchmark_tilelang_bsa.py": GENERIC,
    "tilelang_benchmark/hopper_benchmark/dense_matmul/3.tilelang-benchmark/benchmark_tilelang_matmul.py": GENERIC,
    "tilelang_benchmark/hopper_benchmark/dequantize_matmul/3.tilelang-benchmark/benchmark_tilelang_matmul_fp16xfp4.py": GENERIC,
    "tilelang_benchmark/hopper_benchmark/dequantize_matmul/3.tilelang-benchmark/benchmark_tilelang_matmul_fp16xint4.py": GENERIC,
    "tilelang_benchmark/hopper_benchmark/flashattention/1.tilelang_benchmark/benchmark_tilelang_mha.py": GENERIC,
    # RuneFang/tvm_tilelang_cookbook: cookbook examples (own __main__ blocks)
    "tl_cookbook/docs/examples/ch01_hello/01_matmul_minimal.py": GENERIC,
    "tl_cookbook/docs/examples/ch03_dsl/01_pipeline_annotations.py": GENERIC,
    "tl_cookbook/docs/examples/ch03_dsl/02_shared_vs_shared_dyn.py": GENERIC,
    "tl_cookbook/docs/examples/ch05_lowering/01_prologue_output.py": GENERIC,
    "tl_cookbook/docs/examples/ch06_pipeline_ws/01_ws_on_off_diff.py": HOPPER,
    "tl_cookbook/docs/examples/ch06_pipeline_ws/02_wsoff_vs_ws_regression.py": HOPPER,
    "tl_cookbook/docs/examples/ch07_layout/02_annotate_layout.py": GENERIC,
    "tl_cookbook/docs/examples/ch12_control_flow/01_dynamic_shape_matmul.py": GENERIC,
    "tl_cookbook/docs/examples/ch12_control_flow/02_reduce_sum_vector.py": GENERIC,
    "tl_cookbook/docs/examples/ch12_control_flow/03_cumsum_prefix.py": GENERIC,
    "tl_cookbook/docs/examples/ch13_hopper/01_cluster_sm_to_sm.py": HOPPER,
    "tl_cookbook/docs/examples/ch13_hopper/02_warp_specialize_manual.py": HOPPER,
    "tl_cookbook/docs/examples/ch14_quantize/01_w4a16_dequant_gemm.py": GENERIC,
    # Leafoon/tilelang-operator-dev: the operator template, via a driver
    "tl_operator_dev/drv_operator_template.py": GENERIC,
    # amaranthine09/GDT2_TileLang: Gated DeltaNet-2 kernels (generic) and their Hopper variant, via drivers
    "gdt2/drv_gdt2_gdn2.py": GENERIC,
    "gdt2/drv_gdt2_h100.py": HOPPER,
    # sgl-project/sglang: NSA TileLang kernels (python/sglang/srt/layers/attention/nsa/tilelang_kernel.py), via a driver
    "sglang/drv_sglang_nsa.py": HOPPER,
}


def classify(rel, src):
    if rel in ARCHS:
        return list(ARCHS[rel]), None
    return [], "not selected for corpus/unseen_users (lower_users.ARCHS)"


lower_field.classify = classify
lower_field.MISSING_MODULES = tuple(lower_field.MISSING_MODULES) + ("megatron", "cuequivariance",
                                                                   "cuequivariance_torch", "e3nn")
lower_field.children_through(os.path.abspath(__file__))
_child = lower_field.child


def child(args):
    import tilelang.cuda.intrinsics
    sys.modules.setdefault("tilelang.intrinsics", tilelang.cuda.intrinsics)
    return _child(args)


lower_field.child = child

if __name__ == "__main__":
    sys.exit(lower_field.main())
