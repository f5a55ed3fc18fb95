"""Lower a selection of benchmark/compile_speed/kernel_zoo.py's kernels (TileLang mirror at lowering.COMMIT).

kernel_zoo.py only builds PrimFuncs (its __main__ compiles nothing; benchmark_compile_speed.py hands the whole
zoo to tilelang.par_compile, whose kernels all share the symbol `main`, so corpus/lower_field.py would keep only
the first). This lowers, with corpus/lowering.py's lower_and_record (asyncguard's own lowering, as every
corpus script uses), each selected zoo entry for sm_80 and sm_90a, unedited, under no pass configs (par_compile
is called with none). Selection (build_zoo(scale=1), rows m=256): every kernel family, every tile config of
the GEMM and attention families at one model shape, plus one other head config.

    nice -n 15 python corpus/unseen_bench/lower_zoo.py --zoo /tmp/tl-bench/benchmark/compile_speed --out DIR
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from lowering import lower_and_record  # noqa: E402

SELECT = ["gemm_qkv_4096_64x64x32_256", "gemm_qkv_4096_128x128x32_256", "gemm_qkv_4096_128x64x64_256",
          "gqa_32x8x128_bm64_256", "gqa_32x8x128_bm128_256", "gqa_28x4x128_bm64_256",
          "rmsnorm_2048_256", "silu_5632_256", "softmax_2048_256"]
ARCHS = ["sm_80", "sm_90a"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--zoo", default="/tmp/tl-bench/benchmark/compile_speed")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    sys.path.insert(0, args.zoo)
    import kernel_zoo
    zoo = dict(kernel_zoo.build_zoo(scale=1))
    recs = []
    for name in SELECT:
        for arch in ARCHS:
            rec = {"kernel": name, "arch": arch}
            lower_and_record(zoo[name], arch, None, os.path.join(args.out, f"compile_speed__kernel_zoo__{name}__{arch}.tir"), rec)
            print(json.dumps(rec), flush=True)
            recs.append(rec)
    json.dump(recs, open(os.path.join(args.out, "zoo_lowering.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
