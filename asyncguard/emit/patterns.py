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


def make_pool(threads: int, per: int) -> np.ndarray:
    offs = np.arange(per, dtype=np.uint64)
    return np.concatenate([pool_bytes(t, offs) for t in range(threads)]) if per else np.zeros(16, np.uint8)
