"""Shared helper of the TileKernels drivers (corpus/unseen_users3; not part of the source repository): call one
kernel factory, print (and go on after) an error of the repository's Python code so the next factory runs.
Imported by each driver before tile_kernels: TileKernels' quant/common.py does
`from tilelang.utils.target import determine_target`, a module TileLang 0.1.15 moved to
`tilelang.backend.target` (same function); `tilelang.utils.target` is made to name it (a module alias, as
corpus/unseen_users/lower_users.py does for `tilelang.intrinsics`)."""
import sys
import traceback

import tilelang.backend.target
import tilelang.utils

sys.modules.setdefault("tilelang.utils.target", tilelang.backend.target)
tilelang.utils.target = tilelang.backend.target


def call(name, factory, *args, **kwargs):
    try:
        factory(*args, **kwargs)
        print(f"[driver] {name}: built")
    except Exception as e:  # noqa: BLE001
        print(f"[driver] {name}: {type(e).__name__}: {e}")
        traceback.print_exc(limit=2)
