"""The role loops over a persistent kernel's tiles skip together (engine/machine.py
`_tiles_together`, `_waits`, `_count`, `_tile_peers`). TileLang's stream-K 2-CTA GEMM lowered for
Jetson Thor (20 SMs) runs 102 data-parallel tiles per block in three role loops whose proofs have
periods 6 (producer), 12 (MMA issuer) and 4 (epilogue): the kernel's state repeats every 12 tiles,
which no one loop's comparison one period back sees, so every tile ran."""
import re
from pathlib import Path

import numpy as np

from asyncguard.analyze import check_text
from asyncguard.engine.machine import Machine, _Frame, _Task
from asyncguard.engine.nodes import statements
from asyncguard.engine.program import elaborate
from asyncguard.parse import parse

ROOT = Path(__file__).resolve().parent.parent
THOR_STREAMK = ROOT / "corpus" / "unseen_newarchs" / \
    "gemm_tcgen05__gemm_tcgen5mma_ws_persistent_streamk__gemm_streamk_2cta__sm_110a.tir"
AWS_GEMM = ROOT / "corpus" / "field" / "aws__gemm__gemm__sm_100a.tir"
SKIPPED = re.compile(r"loop at line (\d+) \((\d+) iterations\): iterations (\d+)\.\.(\d+) skipped")


def _skips(scope, trips: int) -> dict:
    """line -> set of iteration counts skipped by the loops of `trips` iterations."""
    out: dict = {}
    for s in scope:
        m = SKIPPED.match(s)
        if m and int(m.group(2)) == trips:
            out.setdefault(int(m.group(1)), set()).add(int(m.group(4)) - int(m.group(3)) + 1)
    return out


def test_thors_stream_k_role_loops_skip_the_same_tiles():
    rep = check_text(THOR_STREAMK.read_text(), THOR_STREAMK.name)
    assert rep.verdict == "clean"
    scope = [s for k in rep.kernels for s in k.scope]
    assert not any("run again without skipping" in s or "thrown away" in s for s in scope), scope
    # producer (line 114), MMA issuer (155) and epilogue (258): one count, a whole number of 12-tile periods
    waves = _skips(scope, 102)
    assert set(waves) == {114, 155, 258}, scope
    counts = set().union(*waves.values())
    assert len(counts) == 1 and next(iter(counts)) % 12 == 0, waves
    assert any("(102 iterations)" in s and "the state repeats every 12 iterations" in s for s in scope), scope
    # the K loops inside the tiles still skip as before
    assert _skips(scope, 128) == {114: {96}, 158: {96}}, scope


def _machine_with_loop():
    program = elaborate(parse(AWS_GEMM.read_text(), str(AWS_GEMM)).functions[0])
    machine = Machine(program, block={"blockIdx.x": 0})
    machine.tiles_decided = {}
    loop = next(s for s in statements(program.body) if getattr(s, "var", None) == "k")
    task = _Task(np.ones(machine.T, dtype=bool), [_Frame(program.body), _Frame(loop.body, loop, 102, 0)], {})
    machine.tasks = [task]
    return machine, task, loop


def test_a_role_loop_that_ended_is_still_matched():
    machine, task, loop = _machine_with_loop()
    gone = _Frame(loop.body, loop, 102, 0)      # another role's loop: it skipped 60 and ended
    gone.skipped, gone.skip_no = 60, 1
    machine.tiles_decided[102] = [gone]
    machine.skips_taken = 1
    f = task.frames[-1]
    f.it = 24
    f.plan = type("Plan", (), {"jump_to": 96, "warm": 24, "shift": 6})()
    assert machine._tile_peers(task, f) == [gone]
    assert machine._count(task, f, 12) == (60, None)           # a whole number of its periods
    count, why = machine._count(task, f, 8)                    # not one: it cannot match
    assert count == 0 and "skipped 60 iterations" in why
    machine._skip_decided(task, f, 0, together=True)          # so it stops the run
    assert machine.result.skips_mixed and "skipped 0 iterations" in machine.result.limit_hit
    assert machine.tiles_decided[102] == [gone, f]


def test_loops_beside_each_other_wait_for_the_last_to_repeat():
    machine, task, loop = _machine_with_loop()
    other = _Frame(loop.body, loop, 102, 0)         # beside it, in another task, not yet repeating
    other.plan = type("Plan", (), {"jump_to": 84, "warm": 36, "shift": 12})()
    other.it = 30
    mask = np.zeros(machine.T, dtype=bool)
    mask[0] = True
    machine.tasks.append(_Task(mask, [_Frame(machine.p.body), other], {}))
    f = task.frames[-1]
    f.it = 24
    f.plan = type("Plan", (), {"jump_to": 96, "warm": 24, "shift": 6})()
    assert machine._waits(task, f, 12)
    other.ready = 12                                # now it repeats too: f need not wait
    assert not machine._waits(task, f, 12)
    # f skips what fits in both: the other's 84 - 36 = 48 from its next boundary, and f's own 72
    # less the 6 iterations the other runs before its boundary and half a shift of f's, plus one
    assert machine._count(task, f, 12) == (48, None)


def test_a_fence_dropped_in_the_epilogues_tiles_is_flagged_while_the_tiles_skip():
    # the same kernel with 60 tiles per block, the epilogue's proxy fence before its TMA store
    # dropped: the role loops skip 12 tiles and the findings are those of the code before role
    # loops skipped together (which ran every tile), checked when this test was written
    text = THOR_STREAMK.read_text().replace("T.grid(102, 128)", "T.grid(60, 128)").replace("range(102)", "range(60)")
    lines = text.splitlines(keepends=True)
    assert lines[272].strip() == "T.fence_proxy_async()" and "T.tma_store" in lines[273]
    rep = check_text("".join(lines[:272] + lines[273:]), THOR_STREAMK.name)
    assert sorted({(f.rule.code, f.line) for f in rep.findings}) == [("AG001", 225), ("AG405", 273)]
    scope = [s for k in rep.kernels for s in k.scope]
    assert _skips(scope, 60) == {114: {12}, 155: {12}, 258: {12}}, scope


def test_a_loop_inside_a_while_loop_is_no_role_loop():
    # the persistent 2-CTA mxfp8 GEMM advances its tiles in `while idx < 1024`: its K loops are the
    # outermost loop frames of their tasks, but a new instance runs in every tile, so a count
    # matched against an earlier instance would be wrong: they keep the usual rule
    path = ROOT / "corpus" / "field" / \
        "blockscaled_gemm_sm100__gemm_mxfp8_blockscaled_1d1d__mxfp8_blockscaled_gemm_2cta_persistent__sm_100a.tir"
    program = elaborate(parse(path.read_text(), str(path)).functions[0])
    machine = Machine(program, block={"blockIdx.x": 0})
    machine.tiles_decided = {}
    loop = next(s for s in statements(program.body) if getattr(s, "var", None) == "k" and id(s) in machine.while_loops
                and machine._holds_loops(s))
    frame = _Frame(loop.body, loop, 64, 0)
    task = _Task(np.ones(machine.T, dtype=bool), [_Frame(program.body), frame], {})
    machine.tasks = [task]
    assert not machine._tiles_together(task, frame)
    machine.while_loops = set()                      # the same loop outside a while loop would be one
    assert machine._tiles_together(task, frame)
