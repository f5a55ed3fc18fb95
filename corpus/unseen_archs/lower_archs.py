"""Run corpus/lower_field.py for archs its arch tables (ARCH_CAPABILITY, ARCH_GPU) do not name: sm_90
(Hopper without the `a` suffix), sm_75 (Turing), and optionally sm_103a / sm_120a / sm_121a. lower_field.py
itself is unchanged: this wrapper (adapted from corpus/unseen_sm8x/lower_sm8x.py) adds the archs to those
tables and makes the children run through it too (run_child's `script`), then calls lower_field.main()
with the same command line.

    nice -n 15 python corpus/unseen_archs/lower_archs.py --generic-archs sm_90,sm_75 \
        --out corpus/unseen_archs --jobs 1 --timeout 200 [--only ...] [--resume]

Faked devices: sm_90 = NVIDIA H100 80GB HBM3 (132 SMs), sm_75 = Tesla T4 (40 SMs), sm_103a = NVIDIA B300
(148 SMs), sm_120a = NVIDIA GeForce RTX 5090 (170 SMs), sm_121a = NVIDIA GB10 (48 SMs).
Note: lower_field's fake torch.cuda properties keep max_shared_memory_per_block_optin = 227 KiB for every
arch (the real sm_75 value is 64 KiB = 65536 bytes); TileLang's lowering takes its limits from the target,
not from torch."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import lower_field  # noqa: E402

lower_field.ARCH_CAPABILITY.update({"sm_90": (9, 0), "sm_75": (7, 5), "sm_103a": (10, 3),
                                    "sm_120a": (12, 0), "sm_121a": (12, 1)})
lower_field.ARCH_GPU.update({"sm_90": ("NVIDIA H100 80GB HBM3", 132), "sm_75": ("Tesla T4", 40),
                             "sm_103a": ("NVIDIA B300", 148), "sm_120a": ("NVIDIA GeForce RTX 5090", 170),
                             "sm_121a": ("NVIDIA GB10", 48)})
lower_field.children_through(os.path.abspath(__file__))

if __name__ == "__main__":
    sys.exit(lower_field.main())
