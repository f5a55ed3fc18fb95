"""Witness pieces shared by the checks: how one access instance is described to a person."""
from __future__ import annotations

from ..engine.machine import Record


def access(rec: Record, thread: int, lo: int, hi: int) -> dict:
    """One side of a witness: statement, thread, loop values, buffer and the bytes involved."""
    es = max(rec.elem_size, 1)
    return {"line": rec.span.line, "col": rec.span.col, "op": rec.via, "access": rec.kind.value,
            "thread": thread, "loops": dict(rec.loops), "buffer": rec.buffer,
            "bytes": [lo, hi], "elements": [(lo - rec.region_base) // es, -(-(hi - rec.region_base) // es)]}


def where(rec: Record) -> str:
    loops = ", ".join(f"{k}={v}" for k, v in rec.loops.items())
    return f"line {rec.span.line}" + (f" ({loops})" if loops else "")


def byte_text(buffer: str, lo: int, hi: int, base: int, es: int) -> str:
    return f"{buffer}[{(lo - base) // es}:{-(-(hi - base) // es)}] (smem bytes {lo}..{hi - 1})"
