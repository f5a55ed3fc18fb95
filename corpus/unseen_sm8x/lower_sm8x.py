"""Run corpus/lower_field.py for the Ampere/Ada consumer archs sm_86 and sm_89, which its arch tables
(ARCH_CAPABILITY, ARCH_GPU) do not name. lower_field.py itself is unchanged: this wrapper adds the two
archs to those tables and makes the children run through it too (run_child's `script`), then calls
lower_field.main() with the same command line.

    nice -n 15 python corpus/unseen_sm8x/lower_sm8x.py --generic-archs sm_86,sm_89 \
        --out corpus/unseen_sm8x --jobs 1 --timeout 200 [--only ...] [--resume]

The faked device: sm_86 = NVIDIA GeForce RTX 3090 (82 SMs), sm_89 = NVIDIA GeForce RTX 4090 (128 SMs).
Note: lower_field's fake torch.cuda properties keep max_shared_memory_per_block_optin = 227 KiB for every
arch (the real value on sm_86/sm_89 is 99 KiB = 101376 bytes); TileLang's own lowering takes its limits from
the target, not from torch."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import lower_field  # noqa: E402

lower_field.ARCH_CAPABILITY.update({"sm_86": (8, 6), "sm_89": (8, 9)})
lower_field.ARCH_GPU.update({"sm_86": ("NVIDIA GeForce RTX 3090", 82), "sm_89": ("NVIDIA GeForce RTX 4090", 128)})
lower_field.children_through(os.path.abspath(__file__))

if __name__ == "__main__":
    sys.exit(lower_field.main())
