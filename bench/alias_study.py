"""Issue point 6: A and B tiles sharing bytes (corpus/handwritten/gemm_ab_alias*.tir) -- how many
syncs the sharing forces, how many separate storage removes, and what separate storage costs.

    python bench/alias_study.py
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from asyncguard.analyze import check_text  # noqa: E402
from asyncguard.repair.redundant import _sync_stmts, remove_redundant  # noqa: E402
from asyncguard.repair import repair_text  # noqa: E402
from asyncguard.repair.tree import Tree  # noqa: E402

HW = ROOT / "corpus" / "handwritten"


def syncs(text: str) -> tuple[int, int]:
    """(barrier statements, barriers executed per main-loop iteration)."""
    t = Tree(text)
    bars = [s for s, c in _sync_stmts(t) if c.name == "T.tvm_storage_sync"]
    in_loop = [s for s in bars if t.blocks[t.where[id(s)][0]].depth_loops > 0]
    return len(bars), len(in_loop)


def footprint(text: str) -> int:
    """Shared bytes the two tiles span: the largest view offset + one tile (4 x 1024 fp16)."""
    offs = [int(m) for m in re.findall(r"handle_add_byte_offset\(buf_dyn_shmem\.data, (\d+)\)", text)]
    return max(offs) + 4 * 1024 * 2


def main() -> int:
    alias = (HW / "gemm_ab_alias.tir").read_text()
    synced = (HW / "gemm_ab_alias_synced.tir").read_text()
    separate = (HW / "gemm_ab_separate.tir").read_text()
    rep = repair_text(alias, "gemm_ab_alias.tir")
    print(f"gemm_ab_alias (A, B at byte 0): {check_text(alias).verdict}; fix inserts "
          f"{rep.fix.inserted} barrier(s): " + "; ".join(e.describe() for e in rep.fix.edits))
    fixed = rep.new_text
    rows = []
    for name, text in (("alias, repaired by fix", fixed), ("alias_synced (hand-written)", synced),
                       ("separate (B at byte 8192)", separate)):
        minimal, edits = remove_redundant(text, name)
        b, loop_b = syncs(text)
        mb, mloop = syncs(minimal)
        rows.append((name, check_text(text).verdict, b, loop_b, mb, mloop, footprint(text)))
    print(f"{'layout':30s} {'verdict':8s} {'barriers':>8s} {'per-iter':>8s} {'minimal':>8s} "
          f"{'min/iter':>8s} {'smem bytes':>10s}")
    for r in rows:
        print(f"{r[0]:30s} {r[1]:8s} {r[2]:8d} {r[3]:8d} {r[4]:8d} {r[5]:8d} {r[6]:10d}")
    alias_min, sep_min = rows[0][5], rows[2][5]
    print(f"separate storage removes {alias_min - sep_min} barrier(s) per main-loop iteration "
          f"({rows[0][4] - rows[2][4]} statement(s)) and costs {rows[2][6] - rows[0][6]} more bytes "
          f"of shared memory ({rows[0][6]} -> {rows[2][6]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
