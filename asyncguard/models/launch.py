"""Threads of one block: extents, thread-id arrays, warps, and TileLang's elected lanes."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import NotModelled

WARP = 32
LIMIT = 1 << 31   # the size is a thread count (an unsigned template argument)


@dataclass
class Launch:
    threads: tuple = (1, 1, 1)        # threadIdx.x, .y, .z extents
    blocks: tuple = (1, 1, 1)         # blockIdx.x, .y, .z extents (one block is analysed)
    thread_vars: dict = field(default_factory=dict)   # source name -> "threadIdx.x" ...
    block_vars: dict = field(default_factory=dict)
    # blockIdx axes whose extent is an expression of kernel parameters ("blockIdx.x" ->
    # `(M + 31) // 32`); their entry in `blocks` is 1: which blocks run is decided per size value
    symbolic_blocks: dict = field(default_factory=dict)
    symbolic_spans: dict = field(default_factory=dict)   # axis -> the launch_thread's source span

    @property
    def num_threads(self) -> int:
        x, y, z = self.threads
        return x * y * z

    def tid(self) -> np.ndarray:
        return np.arange(self.num_threads, dtype=np.int64)

    def axis_values(self, axis: str) -> np.ndarray:
        """threadIdx.{x,y,z} for every linear thread id (x fastest, as CUDA numbers warps)."""
        x, y, _ = self.threads
        t = self.tid()
        return {"threadIdx.x": t % x, "threadIdx.y": t // x % y, "threadIdx.z": t // (x * y)}[axis]

    def base_env(self, block: dict | None = None) -> dict:
        """Thread ids for every thread; block indices from `block` (axis -> value), default 0."""
        env = {name: self.axis_values(axis) for name, axis in self.thread_vars.items()}
        env.update({name: (block or {}).get(axis, 0) for name, axis in self.block_vars.items()})
        return env

    def block_range(self, axis: str) -> tuple | None:
        """(0, extent) of a blockIdx axis; None when its extent is symbolic (any index >= 0)."""
        if axis in self.symbolic_blocks:
            return None
        return (0, self.blocks["xyz".index(axis[-1])])

    def sample_blocks(self, limit: int = 8) -> list[dict]:
        """Blocks to check when control flow depends on blockIdx: all of them when there are at
        most `limit`, else the first, second, middle and last index of each axis."""
        axes = [(f"blockIdx.{a}", n) for a, n in zip("xyz", self.blocks) if n > 1]
        picks = []
        total = 1
        for _, n in axes:
            total *= n
        for axis, n in axes:
            picks.append((axis, list(range(n)) if total <= limit else sorted({0, 1, n // 2, n - 1})))
        out = [{}]
        for axis, values in picks:
            out = [dict(b, **{axis: v}) for b in out for v in values]
        return out


def shuffle_elect(num_threads: int, n: int) -> np.ndarray:
    """`T.tl_shuffle_elect(n)`: lane 0 of each warp whose warp id is a multiple of ceil(n/32);
    n == 0 means lane 0 of warp 0 only (tilelang src/tl_templates/cuda/intrin.h)."""
    if not isinstance(n, (int, np.integer)) or not 0 <= n < LIMIT:   # 1e308, 2**70, -1
        raise NotModelled(f"T.tl_shuffle_elect({n!r:.30}): size out of range or not an integer")
    t = np.arange(num_threads)
    lane, warp = t % WARP, t // WARP
    if n == 0:
        return (lane == 0) & (warp == 0)
    group = -(-n // WARP)
    return (lane == 0) & (warp % group == 0)
