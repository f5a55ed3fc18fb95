"""The sanitizer gate on kernels whose loop count registers fold from loaded numbers (DeepSeek
V3.2's lightning indexer, HISA's pooled MQA: engine/loaded_numbers.py `_fold_trips`, the symbol
`trips(line N)`). The reference runs the symbol's value; the skeleton must loop as many times.
Session 21 on the H200 (bench/sanitizer_h200/2026-12-03-session21) found every trip count >= 1
differing ("512 threads with a different read count"): the launch's table held no CuSeqLenKE /
CuSeqLenKS cell, every load read 0 and the skeleton's fold gave (0 + 255 - 0) // 256 = 0 trips.
Now the table holds numbers z3 picks so that the kernel's own fold gives the symbol's value
(emit/prepare.py fold_numbers), and where no numbers give it at the size (a trip count above
what the clamp `min(cell, seq_len_kv)` allows) the loops run the symbol's value itself.
CPU only: the fold is emulated in Python from the table the emitted CUDA prints."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from asyncguard.emit.prepare import prepare

KERNELS = Path(__file__).resolve().parent.parent / "bench" / "sanitizer_h200" / "2026-12-03-session21" / "kernels"

# kernel -> (KS table, KE table, clamp(size) -> the cells' bound, tile, line of the loops, rows)
FOLDS = {
    "indexer_clean.tir": ("CuSeqLenKS", "CuSeqLenKE", lambda size: size["seq_len_kv"], 256, 60, True),
    "pool_mqa_h32_clean.tir": ("CuSeqLenBlockedKS", "CuSeqLenBlockedKE", lambda size: 512, 128, 55, False),
}


def _table(src: str, root: str) -> dict:
    body = re.search(rf"i64 ag_num_{root}\(i64 off\) {{ switch \(off\) {{(.*?)default: return (\d+)LL; }} }}", src)
    assert body, f"no table for {root}"
    cells = {int(o): int(v) for o, v in re.findall(r"case (-?\d+)LL: return (-?\d+)LL;", body.group(1))}
    return cells, int(body.group(2))


def _sizes(func: str) -> dict:
    inside = func[func.index("[") + 1:-1]
    return {k.strip(): int(v) for k, v in (part.split("=") for part in inside.split(","))}


def _fold(src: str, bx: int, size: dict, ks: str, ke: str, clamp: int, tile: int, guarded: bool) -> int:
    """The kernel's fold, as the TIR writes it, over the table the skeleton prints."""
    kst, ks_default = _table(src, ks)
    ket, ke_default = _table(src, ke)
    s_min, e_max = 2147483647, -2147483648
    for i in range(4):
        row = bx * 4 + i
        inside = row < size["seq_len"] if guarded else True
        s_min = min(s_min, min(kst.get(row * 4, ks_default) if inside else 0, clamp))
        e_max = max(e_max, min(ket.get(row * 4, ke_default) if inside else 0, clamp))
    return max((e_max + tile - 1 - s_min) // tile, 0)


@pytest.mark.parametrize("name", sorted(FOLDS))
def test_the_launch_realises_the_folded_trip_count_the_reference_runs(name):
    ks, ke, clamp_of, tile, line, guarded = FOLDS[name]
    cases = prepare([str(KERNELS / name)])
    sym = f"trips(line {line})"
    seen = set()
    for c in cases:
        size = _sizes(c.func)
        want = size[sym]
        assert c.skip is None, (c.id, c.skip)
        src = c.emitted.source
        clamp = clamp_of(size)
        how = c.plan["fold_trips"][sym]
        seen.add(how)
        if how == "loaded":
            # the kernel's own fold over the printed numbers gives the symbol's value in every
            # traced block, and the loops are the kernel's
            for bx, _, _ in c.plan["blocks"]:
                assert _fold(src, bx, size, ks, ke, clamp, tile, guarded) == want, (c.id, bx)
            assert f"v_nbn_i < v_trips_line_{line}_;" not in src
            assert src.count("v_nbn_i < ag_floordiv(((ag_reg_cu_k_e_max[(0LL + 0LL)]") == 2, c.id
        else:
            # no cell values >= 0 give it: every cell is clamped to `clamp`
            assert want > (clamp + tile - 1) // tile, c.id
            assert src.count(f"v_nbn_i < v_trips_line_{line}_;") == 2, c.id
        # the reference ran as many iterations: 16 traced reads per consumer thread per trip
        assert max(len(r) for r in c.refs[0].reads) == 16 * want, c.id
    assert "loaded" in seen and any(_sizes(c.func)[sym] >= 1 for c in cases
                                    if c.plan["fold_trips"][sym] == "loaded")


def test_a_trip_count_the_clamp_allows_is_folded_from_data_in_every_traced_block():
    # the pooled MQA traces 4 blocks, each folding its own 4 rows: 3 trips from data in all of them
    c = next(c for c in prepare([str(KERNELS / "pool_mqa_h32_clean.tir")]) if c.func.endswith("=3]"))
    assert c.plan["fold_trips"] == {"trips(line 55)": "loaded"} and len(c.plan["blocks"]) > 1
    assert "v_nbn_i < ag_floordiv(((ag_reg_cu_k_e_max" in c.emitted.source


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_folded_trip_skeletons_compile_for_sm90a(tmp_path):
    got = {c.func: c for c in prepare([str(KERNELS / "indexer_clean.tir")])}
    picks = [c for f, c in got.items() if f.endswith("=1]") or f.endswith("=3]")]
    assert {c.plan["fold_trips"]["trips(line 60)"] for c in picks} == {"loaded", "symbol"}
    for i, c in enumerate(picks):
        f = tmp_path / f"k{i}.cu"
        f.write_text(c.emitted.source)
        r = subprocess.run(["nvcc", "-arch=sm_90a", "-c", "-o", str(tmp_path / f"k{i}.o"), str(f)],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-2000:]
