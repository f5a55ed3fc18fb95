"""glibc's heap padding, set once, as the process starts (before numpy, Lark and z3 allocate).

Every z3 query runs in a context of its own (prover/solve.py), which takes tens of MiB when it is
made and gives them back when it is deleted. With glibc's default M_TOP_PAD (128 KiB) each query
grows the heap, faults the pages in and trims them again. `keep_heap_top` keeps 64 MiB at the
top of the heap instead (virtual address space until touched). It has to run before the
checker's modules are loaded: set once z3's first query is asked (as prover/solve.py did at its
import, which analyze.py defers to that query), glibc kept faulting the pages in. On the stream-K
GEMM (sm_80) one check made 1,046,000 minor page faults and 1.7 s of system time that way, and
9,400 faults and 0.02 s when set first (bench/README.md, "z3 contexts and glibc's heap top").
"""
from __future__ import annotations

import sys

_M_TOP_PAD = -2          # malloc.h
TOP_PAD_BYTES = 64 << 20


def keep_heap_top() -> bool:
    """Set M_TOP_PAD where the C library is glibc; False elsewhere (macOS, musl: nothing to do)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes
    try:
        # the process's own symbols: libc's mallopt, without find_library's ldconfig run
        return bool(ctypes.CDLL(None).mallopt(_M_TOP_PAD, TOP_PAD_BYTES))
    except (OSError, AttributeError):
        return False
