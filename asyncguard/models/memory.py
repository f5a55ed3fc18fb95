"""Shared memory: allocations, views (buffers and pointers) and the bytes an access touches.

All shared allocations live in one flat byte space: the dynamic allocations first (TileLang
carves every `shared.dyn` buffer out of one `buf_dyn_shmem`), then static `shared` ones.
A view is a name plus (region, byte offset, dtype); `T.decl_buffer(data=...)` and
`T.handle_add_byte_offset` create views, so two names at the same bytes alias, as on the GPU.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

SHARED_SCOPES = ("shared", "shared.dyn")
BARRIER_SCOPES = ("shared.barrier", "shared.cluster_barrier")

_DTYPE_BYTES = {"bool": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4,
                "int64": 8, "uint64": 8, "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8,
                "handle": 8, "e4m3_float8": 1, "e5m2_float8": 1, "float8_e4m3": 1, "float8_e5m2": 1,
                "float8_e4m3fn": 1, "float8_e5m2fnuz": 1, "float8_e4m3fnuz": 1, "float8_e8m0fnu": 1}


def dtype_bytes(dtype: str) -> int | None:
    """Bytes per element of a TIR dtype ("float16", "float16x2", "uint8x128"); None if unknown."""
    m = re.fullmatch(r"([a-z_0-9]+?)(?:x(\d+))?", dtype)
    if not m or m.group(1) not in _DTYPE_BYTES:
        return None
    return _DTYPE_BYTES[m.group(1)] * int(m.group(2) or 1)


@dataclass
class Region:
    """One allocation. `base` is its first byte in the flat shared space (shared scopes only)."""
    name: str
    scope: str
    nbytes: int
    base: int = 0
    line: int = 0
    elem_dtype: str = "uint8"
    shape: tuple = ()
    barrier_base: int = 0   # shared.barrier regions: global id of their first mbarrier


@dataclass
class View:
    name: str
    dtype: str
    region: Region | None
    byte_offset: int = 0
    shape: tuple = ()
    scope: str = ""

    @property
    def is_shared(self) -> bool:
        return self.region is not None and self.region.scope in SHARED_SCOPES

    @property
    def is_barrier(self) -> bool:
        return self.region is not None and self.region.scope in BARRIER_SCOPES

    @property
    def elem_size(self) -> int:
        return dtype_bytes(self.dtype) or 1

    @property
    def flat_base(self) -> int:
        return (self.region.base if self.region else 0) + self.byte_offset


@dataclass
class SharedLayout:
    regions: list = field(default_factory=list)
    dyn_bytes: int = 0      # farthest byte of dynamic allocations
    static_bytes: int = 0

    def add(self, region: Region) -> None:
        self.regions.append(region)

    def assign_bases(self) -> int:
        """Place dynamic regions at 0 (one allocation) or packed 16-byte aligned (several), then
        the static ones. Returns the total size of the flat space."""
        addr = 0
        for r in self.regions:
            if r.scope == "shared.dyn":
                addr = -(-addr // 16) * 16
                r.base = addr
                addr += r.nbytes
        self.dyn_bytes = addr
        for r in self.regions:
            if r.scope == "shared":
                addr = -(-addr // 16) * 16
                r.base = addr
                addr += r.nbytes
        self.static_bytes = addr - self.dyn_bytes
        return addr
