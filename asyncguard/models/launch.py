"""Threads of one block (or of one thread-block cluster): extents, thread-id arrays, warps, and
TileLang's elected lanes.

A kernel launched with `cluster_dims` runs its CTAs in one machine (models/cluster.py): machine
thread `t` is thread `t % num_threads` of the CTA with cluster rank `t // num_threads`, so every
per-thread array the models build spans `machine_threads` threads."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import NotModelled
from ..ir import Call, Const

WARP = 32
LIMIT = 1 << 31   # the size is a thread count (an unsigned template argument)
CLUSTER_RANK = "%cluster_ctarank"   # environment key of the task's CTA rank (never a TIR name)


_AXIS_VALUES: dict = {}   # Launch.axis_values: (threads, per CTA, per machine, axis) -> array


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
    cluster: tuple = (1, 1, 1)        # cluster_dims: CTAs per cluster along x, y, z

    @property
    def num_threads(self) -> int:
        """Threads of one CTA (what `__syncthreads` waits for, the per-block limit)."""
        x, y, z = self.threads
        return x * y * z

    @property
    def cluster_size(self) -> int:
        cx, cy, cz = self.cluster
        return cx * cy * cz

    @property
    def machine_threads(self) -> int:
        """Threads the machine runs at once: every CTA of one cluster."""
        return self.num_threads * self.cluster_size

    def tid(self) -> np.ndarray:
        return np.arange(self.machine_threads, dtype=np.int64)

    def axis_values(self, axis: str) -> np.ndarray:
        """threadIdx.{x,y,z} for every linear thread id (x fastest, as CUDA numbers warps). One
        read-only array per launch shape and axis for the whole process: every run (block,
        size, task) then binds the same array, and what engine/exprs.py memoizes by identity is
        found again in the next run instead of being computed anew."""
        key = (tuple(self.threads), self.num_threads, self.machine_threads, axis)
        values = _AXIS_VALUES.get(key)
        if values is None:
            x, y, _ = self.threads
            t = self.tid() % self.num_threads
            values = {"threadIdx.x": t % x, "threadIdx.y": t // x % y, "threadIdx.z": t // (x * y)}[axis]
            values.flags.writeable = False
            if len(_AXIS_VALUES) >= 256:
                _AXIS_VALUES.clear()
            _AXIS_VALUES[key] = values
        return values

    def cta_coords(self, rank: int) -> tuple:
        """%cluster_ctaid of cluster rank `rank` (%cluster_ctarank numbers CTAs x fastest)."""
        cx, cy, _ = self.cluster
        return rank % cx, rank // cx % cy, rank // (cx * cy)

    def base_env(self, block: dict | None = None, rank: int = 0) -> dict:
        """Thread ids for every thread; block indices of the CTA with cluster rank `rank` in the
        cluster that holds block `block` (axis -> value, default 0)."""
        env = {name: self.axis_values(axis) for name, axis in self.thread_vars.items()}
        coords = self.cta_coords(rank)
        for name, axis in self.block_vars.items():
            k = "xyz".index(axis[-1])
            first = (block or {}).get(axis, 0) // self.cluster[k] * self.cluster[k]
            env[name] = first + coords[k]
        env[CLUSTER_RANK] = rank
        return env

    def block_range(self, axis: str) -> tuple | None:
        """(0, extent) of a blockIdx axis; None when its extent is symbolic (any index >= 0)."""
        if axis in self.symbolic_blocks:
            return None
        return (0, self.blocks["xyz".index(axis[-1])])

    def sample_blocks(self, limit: int = 8, deciding: set | None = None) -> list[dict]:
        """Blocks to check when control flow depends on blockIdx: all of them when there are at
        most `limit`, else the first, second, middle and last index of each axis. `deciding`:
        the axes whose index decides something the machine runs (engine/program.py's control
        names); an axis outside it runs as index 0, which stands for every index of it, the same
        argument that lets a kernel whose control never reads blockIdx run one block."""
        axes = [(f"blockIdx.{a}", n) for a, n in zip("xyz", self.blocks)
                if n > 1 and (deciding is None or f"blockIdx.{a}" in deciding)]
        picks = []
        total = 1
        for _, n in axes:
            total *= n
        for axis, n in axes:
            c = self.cluster["xyz".index(axis[-1])]   # one block stands for its whole cluster
            values = list(range(n)) if total <= limit else sorted({0, 1, n // 2, n - 1})
            picks.append((axis, sorted({v // c * c for v in values})))
        out = [{}]
        for axis, values in picks:
            out = [dict(b, **{axis: v}) for b in out for v in values]
        return out


    def more_blocks(self, sampled: list, deciding: set | None = None, count: int = 16) -> list[dict]:
        """Up to `count` blocks beyond `sampled` (sample_blocks' pick), spread over the grid of
        the deciding axes: the flat block index steps by the golden ratio, so every stretch of the
        grid gets a block before any gets two (a stream-K kernel's blocks differ in where their
        share of the iterations meets a tile boundary, which the first, second, middle and last
        block may all miss). In a cluster, its first block stands for it, as in sample_blocks."""
        axes = [(f"blockIdx.{a}", n, self.cluster["xyz".index(a)]) for a, n in zip("xyz", self.blocks)
                if n > 1 and (deciding is None or f"blockIdx.{a}" in deciding)]
        total = 1
        for _, n, _ in axes:
            total *= n
        seen = {tuple(sorted(b.items())) for b in sampled}
        out: list = []
        step = (5 ** 0.5 - 1) / 2
        for k in range(1, min(total, 64 * count) + 1):
            flat, block = int((k * step) % 1 * total), {}
            for axis, n, c in reversed(axes):
                flat, v = divmod(flat, n)
                block[axis] = v // c * c
            key = tuple(sorted(block.items()))
            if key not in seen:
                seen.add(key)
                out.append(dict(sorted(block.items())))
                if len(out) == count:
                    break
        return out


def shuffle_elect(num_threads: int, n: int, ctas: int = 1) -> np.ndarray:
    """`T.tl_shuffle_elect(n)`: lane 0 of each warp whose warp id is a multiple of ceil(n/32);
    n == 0 means lane 0 of warp 0 only (tilelang src/tl_templates/cuda/intrin.h). Thread ids are
    CTA-local (`ctas` CTAs of `num_threads` threads each: the same lanes in every CTA)."""
    if not isinstance(n, (int, np.integer)) or not 0 <= n < LIMIT:   # 1e308, 2**70, -1
        raise NotModelled(f"T.tl_shuffle_elect({n!r:.30}): size out of range or not an integer")
    t = np.arange(num_threads * ctas) % num_threads
    lane, warp = t % WARP, t // WARP
    if n == 0:
        return (lane == 0) & (warp == 0)
    group = -(-n // WARP)
    return (lane == 0) & (warp % group == 0)


def two_cta_leader(call) -> bool:
    """`use_2cta=1` on a TMA load: its bytes complete on the leader (even) CTA's mbarrier."""
    flag = call.kwarg("use_2cta") if hasattr(call, "kwarg") else None
    return isinstance(flag, Const) and bool(flag.value) or \
        isinstance(flag, Call) and flag.args and isinstance(flag.args[0], Const) and bool(flag.args[0].value)


def leader_rank(env) -> int:
    """The CTA whose mbarrier a `cta_group::2` TMA completes on: the peer bit cleared."""
    return int(env.get(CLUSTER_RANK, 0)) & ~1


# `T.get_lane_idx(ws)`, `T.get_warp_idx_sync(ws)`, `T.get_warp_idx(ws)`, `T.get_warp_group_idx(ws,
# wpg)`: what each is, per backend (TileLang 0.1.15):
# - CUDA (src/cuda/codegen/codegen_cuda.cc prints `tl::get_warp_idx_sync(ws)` ...; the templates in
#   src/tl_templates/cuda/intrin.h): `linear_thread_idx_in_block() / ws` (`% ws` for the lane, `/
#   (ws * wpg)` for the group), the linear id being threadIdx.x + blockDim.x * (threadIdx.y +
#   blockDim.y * threadIdx.z); a size <= 0 means the default (32 lanes, 4 warps). No shuffle, no
#   warp synchronization: the `_sync` variant computes the same number.
# - CuTeDSL (src/cuda/codegen/codegen_cutedsl.cc): `tl.thread_idx() // ws` (`% ws`, `// (ws *
#   wpg)`), `tl.thread_idx()` being threadIdx.x (contrib/cutedsl/__init__.py).
# The two agree when threadIdx.y and threadIdx.z have extent 1 and the sizes are positive, which is
# what the model requires (otherwise the value is not modelled).
THREAD_INDEX_CALLS = {"T.get_lane_idx": 1, "T.get_warp_idx_sync": 1, "T.get_warp_idx": 1,
                      "T.get_warp_group_idx": 2}
_THREAD_INDEX_VALUES: dict = {}


def thread_index(launch: Launch, name: str, sizes: tuple) -> np.ndarray:
    """The value of `name` (a THREAD_INDEX_CALLS key) with positive sizes `sizes` (warp size,
    warps per group; defaults 32 and 4 filled in) for every machine thread: one read-only array
    per launch shape."""
    if launch.threads[1] != 1 or launch.threads[2] != 1:
        raise NotModelled(f"{name}: threadIdx.y / threadIdx.z extents {launch.threads[1:]}: the CUDA "
                          "templates use the linear thread id, the CuTeDSL backend threadIdx.x")
    ws = sizes[0] if sizes else WARP
    wpg = sizes[1] if len(sizes) > 1 else 4
    if not all(isinstance(s, (int, np.integer)) and 0 < s < LIMIT for s in (ws, wpg)):
        raise NotModelled(f"{name}: sizes {sizes!r:.40} are not positive integers")
    key = (name, int(ws), int(wpg), launch.num_threads, launch.machine_threads)
    values = _THREAD_INDEX_VALUES.get(key)
    if values is None:
        t = launch.tid() % launch.num_threads
        if name == "T.get_lane_idx":
            values = t % ws
        elif name == "T.get_warp_group_idx":
            values = t // (ws * wpg)
        else:
            values = t // ws
        values.flags.writeable = False
        if len(_THREAD_INDEX_VALUES) >= 256:
            _THREAD_INDEX_VALUES.clear()
        _THREAD_INDEX_VALUES[key] = values
    return values
