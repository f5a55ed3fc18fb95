"""The skeleton's deterministic byte patterns, as numpy: the mixing function, a store's pattern
and the global pool its copies read. A module of its own (numpy only) because every launcher and
compute-sanitizer process builds the pool: importing the reference (the engine) there cost a
second of start-up per process."""
from __future__ import annotations

import numpy as np

M32 = np.uint64(0xFFFFFFFF)


def fmix(h: np.ndarray) -> np.ndarray:
    h = np.asarray(h, dtype=np.uint64) & M32
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x85EBCA6B)) & M32
    h ^= h >> np.uint64(13)
    h = (h * np.uint64(0xC2B2AE35)) & M32
    h ^= h >> np.uint64(16)
    return h


def seed(tid: int, w: int) -> int:
    return int(fmix(np.uint64((tid * 65599 + w * 2654435761 + 12345) & 0xFFFFFFFF)))


def pattern(s: int, addrs: np.ndarray) -> np.ndarray:
    a = (np.asarray(addrs, dtype=np.uint64) * np.uint64(0x9E3779B1)) & M32
    return (fmix(np.uint64(s) ^ a) & np.uint64(0xFF)).astype(np.uint8)


def pool_bytes(tid: int, offs: np.ndarray) -> np.ndarray:
    x = (np.uint64(tid) * np.uint64(0x27D4EB2F) + np.asarray(offs, dtype=np.uint64) * np.uint64(0x9E3779B1)
         + np.uint64(0x51ED270B)) & M32
    return (fmix(x) & np.uint64(0xFF)).astype(np.uint8)


def make_pool(slices: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Every thread's slice of the pool, back to back (thread t's holds pool_bytes(t, 0 .. slices[t]);
    a thread that copies nothing has none), and where each starts: threads + 1 offsets."""
    at = np.concatenate([[0], np.cumsum(slices, dtype=np.uint64)]).astype(np.uint64)
    parts = [pool_bytes(t, np.arange(n, dtype=np.uint64)) for t, n in enumerate(slices) if n]
    return (np.concatenate(parts) if parts else np.zeros(0, np.uint8)), at
