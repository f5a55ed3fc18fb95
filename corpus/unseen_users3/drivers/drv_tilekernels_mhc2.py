"""Second half of drv_tilekernels_mhc.py (the same calls, part 2: post, pre_apply_mix, pre_big_fuse,
pre_split_mixes, sinkhorn), its own file so that one file stays under lower_field's 16-kernel cap."""
import os
os.environ["TK_MHC_PART"] = "2"
exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "drv_tilekernels_mhc.py")).read())
