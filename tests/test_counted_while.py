"""A persistent kernel's `while tile[0] < N` tile loop run as the for loop it counts
(engine/accelerate.py `counted_while`, engine/machine.py `_counted`), so that it is planned and
skipped like TileLang's for-loop tile loops; the next tile's indices its iterations end with are
left out of the proof and computed again after the jump (`unread`, Plan.refresh).

Found on TileLang 0.1.15's persistent tcgen05 GEMMs lowered for sm_110a (Thor: 102 tiles per
cluster): every tile ran, and the fp8 x fp4 GEMM hit the 60 s limit (unknown) where its sm_100a
lowering (14 tiles) is clean."""
from pathlib import Path

from asyncguard.analyze import check_text
from asyncguard.engine import accelerate
from asyncguard.engine.machine import Machine
from asyncguard.engine.nodes import PStore, PWhile, register_key, statements
from asyncguard.engine.program import elaborate
from asyncguard.parse import parse

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "tests" / "data" / "persistent_while_tiles_sm90a.tir"
THOR = ROOT / "corpus" / "unseen_newarchs" / \
    "deepseek_v4__fp8_fp4_gemm_1d1d_sm100__fp8_fp4_gemm_1d1d_persistent__sm_110a.tir"


def _program(text: str):
    return elaborate(parse(text, "<test>").functions[0])


def _whiles(program) -> dict:
    return {w.span.line: w for w in statements(program.body) if isinstance(w, PWhile)}


def test_a_tile_counter_loop_counts_its_trips():
    program = _program(KERNEL.read_text())
    how = {line: accelerate.counted_while(w, program) for line, w in _whiles(program).items()}
    assert set(how) == {42, 56}
    assert how[42].cell == ("p_tile", 0) and how[42].d == 4 and how[42].bound == 400
    assert [how[42].trips(r0) for r0 in (0, 1, 3, 396, 399, 400, 401)] == [100, 100, 100, 1, 1, 0, 0]


def test_a_while_loop_that_is_not_counted_stays_a_while_loop():
    text = KERNEL.read_text()
    step = "                p_tile[0] = p_tile[0] + 4\n"
    assert step in text
    cases = {
        "a second store": text.replace(step, step + "                p_tile[0] = p_tile[0] + 1\n", 1),
        "a break": text.replace(step, step + "                T.loop_break()\n", 1),
        "a step that does not grow": text.replace(step, step.replace("+ 4", "- 4"), 1),
        "a bound that is a register": text.replace("while p_tile[0] < 400:", "while p_tile[0] < p_m[0]:", 1),
    }
    for why, variant in cases.items():
        program = _program(variant)
        assert accelerate.counted_while(_whiles(program)[42], program) is None, why


def test_the_tile_loops_skip_and_the_kernel_is_clean():
    report = check_text(KERNEL.read_text(), str(KERNEL))
    assert report.verdict == "clean", [f.message for f in report.findings]
    scope = [line for k in report.kernels for line in k.scope]
    assert any(line.startswith("loop at line 42 (100 iterations): iterations") and "skipped" in line
               for line in scope), scope
    assert any(line.startswith("loop at line 56 (100 iterations): iterations") and "skipped" in line
               for line in scope), scope


def test_a_dropped_consumer_release_is_still_found():
    text = KERNEL.read_text()
    release = "                    T.ptx_arrive_barrier(mbarrier_1[phase_1 % 3 + 3])\n"
    assert release in text
    report = check_text(text.replace(release, "", 1), str(KERNEL))
    assert report.verdict == "buggy"
    assert {f.rule.code for f in report.findings} & {"AG407", "AG408"}, [f.message for f in report.findings]


def test_the_next_tile_index_is_computed_again_after_the_jump():
    """Every TMA load of the producer reads the row its tile register gives (`p_tile % 512 // 7`),
    the loads right after the skipped tiles too: without the tail run again they would read the
    row computed before the jump."""
    program = _program(KERNEL.read_text())
    load = next(s for s in statements(program.body) if getattr(s, "name", None) == "tma_load")
    seen = []

    def at_stmt(m, task, s) -> bool:
        env = task.env
        tile, row = env[register_key("p_tile", 0)], env[register_key("p_m", 0)]
        seen.append((int(tile[task.tids[0]]) if hasattr(tile, "__len__") else int(tile),
                     int(row[task.tids[0]]) if hasattr(row, "__len__") else int(row)))
        return False

    machine = Machine(program)
    machine.watched, machine.at_stmt = frozenset({id(load)}), at_stmt
    result = machine.run()
    assert [a for _, _, a, b, _ in result.accelerated if a is not None], result.accelerated
    assert seen and all(row == tile % 512 // 7 for tile, row in seen if tile > 0), seen[:20]
    tiles = sorted({tile for tile, _ in seen})
    assert tiles[-1] == 396 and len(tiles) < 100   # the last tile ran; skipped ones did not


def test_the_stores_the_proof_leaves_out_are_the_tail():
    program = _program(KERNEL.read_text())
    w = _whiles(program)[42]
    loop = w
    steps, ids, why, nested = accelerate.counters(loop.then, program.views, "t")
    assert why is None and set(steps) == {("p_cnt", 0), ("p_tile", 0)}
    lets = accelerate._body_lets(loop.then, program.views, steps, nested)
    assert "phase" in lets   # bound inside the K loop from a steady counter: written into its uses
    left, tail = accelerate.unread(loop.then, program.views, steps, ids, lets)
    assert [type(s).__name__ for s in tail] == ["PLet", "PStore"]
    assert any(isinstance(s, PStore) and s.region == "p_m" and id(s) in left for s in tail)


def test_thor_fp8_fp4_gemm_is_clean_with_its_tile_loops_skipped():
    report = check_text(THOR.read_text(), str(THOR))
    assert report.verdict == "clean", [f.message for f in report.findings]
    scope = [line for k in report.kernels for line in k.scope]
    assert any(line.startswith("loop at line 108 (102 iterations): iterations") for line in scope), scope
