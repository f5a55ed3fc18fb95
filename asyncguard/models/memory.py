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

# The dtype names TVM prints (tvm_ffi src/ffi/dtype.cc, DLDataTypeToString_): a base name, its
# bits where the base does not fix them, and `xN` lanes. float8/6/4 names carry their width.
_FIXED_BITS = {"bool": 8, "handle": 64, "float4_e2m1fn": 4, "float6_e2m3fn": 6, "float6_e3m2fn": 6,
               **{f"float8_{k}": 8 for k in ("e3m4", "e4m3", "e4m3b11fnuz", "e4m3fn", "e4m3fnuz",
                                             "e5m2", "e5m2fnuz", "e8m0fnu")},
               "e4m3_float8": 8, "e5m2_float8": 8}   # TileLang's older names for float8
_DEFAULT_BITS = {"int": 32, "uint": 32, "float": 32, "bfloat": 16}
# TVMScript prints a custom dtype without its bits: the ones TileLang registers, by name
# (tilelang/language/dtypes.py; mma_macro_generator's "custom[float4_e2m1_unpacked]8": an fp4
# value in an 8-bit shared slot). Any other custom name has no known size.
_CUSTOM_BITS = {"tfloat32": 32, "float4_e2m1_unpacked": 8}
_DTYPE = re.compile("(?:(?P<fixed>" + "|".join(sorted(_FIXED_BITS, key=len, reverse=True)) + ")"
                    r"|(?P<base>bool|u?int|bfloat|float|custom\[[A-Za-z_0-9]+\])(?P<bits>\d*))"
                    r"(?:x(?P<lanes>\d+))?")


def dtype_bits(dtype: str) -> int | None:
    """Bits of one element of a TIR dtype, lanes included ("int4" 4, "float16x2" 32,
    "float4_e2m1fnx2" 8, "custom[tfloat32]32" 32, "bool" 8); None if not a dtype TVM prints
    (or a scalable vector, whose size the launch does not fix)."""
    m = _DTYPE.fullmatch(dtype.strip())
    if not m:
        return None
    if m.group("fixed"):
        bits = _FIXED_BITS[m.group("fixed")]
    else:
        base = m.group("base")
        if m.group("bits"):
            bits = int(m.group("bits"))
        elif base.startswith("custom["):
            bits = _CUSTOM_BITS.get(base[len("custom["):-1])
            if bits is None:
                return None
        else:
            bits = _DEFAULT_BITS.get(base, 8)
    lanes = int(m.group("lanes") or 1)
    return bits * lanes if bits > 0 and lanes > 0 else None


def dtype_bytes(dtype: str) -> int | None:
    """Bytes per element of a TIR dtype ("float16", "float16x2", "uint8x128"); None if unknown
    or if an element is not a whole number of bytes (sub-byte types: use `dtype_bits`)."""
    bits = dtype_bits(dtype)
    return bits // 8 if bits is not None and bits % 8 == 0 else None


def byte_span(first_elem, count, bits: int):
    """Bytes [lo, hi) covering elements [first_elem, first_elem + count) of `bits` bits each:
    a byte partly covered counts (a sub-byte element shares its byte with its neighbours)."""
    lo = (first_elem * bits) // 8
    hi = -((-(first_elem + count) * bits) // 8)
    return lo, hi


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
    def elem_bits(self) -> int:
        return dtype_bits(self.dtype) or 8

    @property
    def elem_size(self) -> int:
        """Bytes per element; 1 for sub-byte types (whose addresses go through `byte_span`)."""
        return max(self.elem_bits // 8, 1)

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
