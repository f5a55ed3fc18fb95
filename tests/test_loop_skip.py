"""Loop skipping (engine/accelerate.py, the jump in engine/machine.py) on warp-specialized
pipelines: a producer's loop and its consumer's loop run in different tasks and must skip together.

Found on TileLang 0.1.15's sm_120 lowering of examples/attention_sink/example_gqa_sink_bwd_varlen.py
(flashattn_bwd.flash_bwd): the consumer's loop ends in a bounds guard on a global-memory atomic,
`k * 32 + ... < 16297`, not periodic in k. The guard decides nothing the machine models (the branch
is irrelevant: it never runs), yet it refuted the consumer loop's periodicity; the producer's loop
skipped 4072 iterations alone and the consumer waited forever for their arrivals (a false AG408 at
the size 131478, on mbarrier[1] in phase 18)."""
from pathlib import Path

import numpy as np

from asyncguard.analyze import check_text
from asyncguard.engine.machine import Machine
from asyncguard.engine.nodes import statements
from asyncguard.engine.program import elaborate
from asyncguard.parse import parse

DATA = Path(__file__).resolve().parent / "data"
REDUCED = DATA / "ws_pipeline_global_guard_sm120.tir"
REAL = DATA / "attention_sink__example_gqa_sink_bwd_varlen__flashattn_bwd.flash_bwd__sm_120.tir"

# the consumer's loop in the reduced kernel: a guard that is relevant (a named barrier of the
# consumer warps inside) and not periodic, so that loop truly cannot skip
RELEVANT_GUARD = ("                for i in T.unroll(4):\n",
                  "                if k < 100:\n"
                  "                    T.tvm_storage_sync(\"shared.dyn\", 3, 128)\n"
                  "                for i in T.unroll(4):\n")


def _run(text: str, size: int):
    program = elaborate(parse(text, "<test>").functions[0])
    (sym,) = program.symbols
    return Machine(program, sizes={sym: size}).run()


def test_a_bounds_guard_on_global_memory_does_not_stop_the_consumer_loop_skipping():
    # 600 trips of both loops, the guard turning false at k = 509: each loop proved periodic
    # and skipped all the same (the guard's branch is irrelevant)
    result = _run(REDUCED.read_text(), 600 * 32)
    assert not result.stuck
    skipped = {span.line for span, n, a, b, how in result.accelerated if a is not None}
    assert skipped == {34, 42}, result.accelerated


def test_the_reduced_kernel_is_clean_for_every_length():
    r = check_text(REDUCED.read_text(), str(REDUCED))
    assert r.verdict == "clean", [f.message for f in r.findings]
    assert any(line.startswith("proved for every") for k in r.kernels for line in k.scope)


def test_a_loop_does_not_skip_beside_a_loop_that_cannot():
    # the consumer's loop cannot skip (a relevant guard, k < 100): the producer's loop, proved
    # periodic on its own, must not skip either, or the consumer waits for arrivals never made
    text = REDUCED.read_text()
    assert RELEVANT_GUARD[0] in text
    result = _run(text.replace(RELEVANT_GUARD[0], RELEVANT_GUARD[1], 1), 200 * 32)
    assert not result.stuck, [(s.barrier, s.span.line, s.phase) for s in result.stuck]
    assert result.limit_hit is None
    outcomes = {span.line: (a, how) for span, n, a, b, how in result.accelerated}
    assert outcomes[42][0] is None and outcomes[34][0] is None, outcomes
    assert "the loop at line 42 beside it (other threads) does not skip" in outcomes[34][1]


def test_the_real_kernel_has_no_hang_and_its_empty_sequence_race_stays():
    # the TileLang kernel itself: no AG408 (the false hang); what stays is real. AG401 at lines
    # 203/211 for an empty query sequence (trip count 0: the consumer never waits for K's TMA
    # load on mbarrier[16], then writes dv_shared / dk_shared over K_shared while it may land),
    # and at 208/216 the global atomics that read those tiles back (their shared operands), and
    # AG503 (108032 shared bytes per block > sm_120's 101376), and AG510 (its setmaxnreg needs
    # sm_120a: the text says sm_120)
    r = check_text(REAL.read_text(), str(REAL))
    codes = {f.rule.code for f in r.findings}
    assert "AG408" not in codes, [f.message for f in r.findings]
    assert codes == {"AG401", "AG503", "AG510"}, [f.message for f in r.findings]
    races = [f for f in r.findings if f.rule.code == "AG401"]
    assert {f.line for f in races} == {203, 208, 211, 216}
    assert all(list(f.witness["sizes"].values()) == [0] for f in races)


def test_the_periodicity_proof_holds_for_the_block_being_run():
    # TileLang's sm_120 attention-sink backward (bhsd): both loops run k from by * 4 and the
    # consumer's first iteration waits on K's mbarrier (`if k == by * 4`). With `by` free the
    # branch may fall anywhere and the loop never skipped; the machine runs one block, whose `by`
    # puts the branch before the skipped range
    path = DATA / "attention_sink__example_mha_sink_bwd_bhsd__flashattn_bwd.flash_bwd__sm_120.tir"
    program = elaborate(parse(path.read_text(), str(path)).functions[0])
    result = Machine(program, block={"blockIdx.y": 1}).run()
    assert not result.stuck and result.limit_hit is None
    skipped = {span.line: (a, b) for span, n, a, b, how in result.accelerated if a is not None}
    assert skipped == {75: (12, 124), 100: (12, 124)}, result.accelerated   # k from 4: one period of 4 warms up


# ---------------------------------------------------------------- stage rings indexed by registers
# TileLang's persistent kernels index the stage ring by a per-thread register that advances once
# per iteration and carries over from tile to tile (`phase[0] % 3`, parity `phase[0] % 6 // 3`),
# not by the loop variable: the reduced kernel keeps that shape (engine/accelerate.py, counters)
RING = DATA / "persistent_register_ring_sm90a.tir"
# the consumer's ring jumps by 3 at k == 50, inside the iterations a plan would skip: 3 keeps the
# stage and flips the parity, so the consumer reads a stage the producer is still loading
RING_JUMP = ("                    c_cnt_1[0] = c_cnt_1[0] + 1\n",
             "                    if k == 50:\n"
             "                        c_cnt_1[0] = c_cnt_1[0] + 3\n"
             "                    c_cnt_1[0] = c_cnt_1[0] + 1\n")
# single bug: the consumer frees the next stage instead of the one it read
RING_WRONG_FREE = ("T.ptx_arrive_barrier(mbarrier_1[c_cnt_1[0] % 3 + 3])",
                   "T.ptx_arrive_barrier(mbarrier_1[(c_cnt_1[0] + 1) % 3 + 3])")


def _run_ring(text: str, skip: bool = True):
    program = elaborate(parse(text, "<test>").functions[0])
    machine = Machine(program, block={"blockIdx.x": 1}, **({} if skip else {"accelerate_above": 1 << 62}))
    return machine, machine.run()


def _findings(text: str, skip: bool = True, monkeypatch=None):
    """(verdict, [(rule, line, col)]) of the whole check; `skip=False`: every plan refused."""
    from asyncguard.engine import accelerate
    if not skip:
        monkeypatch.setattr(accelerate, "plan", lambda loop, n, start, *a, **k: accelerate.Plan(0, 0, None, "off"))
    r = check_text(text, "<test>")
    if not skip:
        monkeypatch.undo()
    return r.verdict, sorted((f.rule.code, f.line, f.col) for f in r.findings)


def test_a_ring_indexed_by_registers_skips_and_moves_the_registers():
    text = RING.read_text()
    machine, result = _run_ring(text)
    assert not result.stuck and result.limit_hit is None
    # period 6 of the registers (stage % 3, parity % 6 // 3): shift 6, 12 warm-up iterations,
    # iterations 12..95 of each of the three tiles skipped by both loops
    skipped = {(span.line, a, b) for span, n, a, b, how in result.accelerated if a is not None}
    assert skipped == {(39, 12, 96), (46, 12, 96)}, result.accelerated
    assert all("counters" in how for span, n, a, b, how in result.accelerated)
    assert len(result.accelerated) == 6   # 2 loops x 3 tiles, each skipped
    full_machine, full = _run_ring(text, skip=False)
    # 52 of every 100 iterations run
    assert not full.accelerated and 10 * result.steps < 6 * full.steps, (result.steps, full.steps)
    # the registers end where the full run leaves them: 3 tiles x 100 iterations of the
    # producer's register in the producer's threads, of the consumer's in the consumer's
    got = _registers(machine)
    assert got == _registers(full_machine)
    assert got["p_cnt[0]", 0] == 300 and got["c_cnt[0]", 128] == 300


def test_the_ring_kernel_is_clean_with_and_without_skipping(monkeypatch):
    text = RING.read_text()
    assert _findings(text) == ("clean", [])
    assert _findings(text, skip=False, monkeypatch=monkeypatch) == ("clean", [])


def test_a_bug_in_the_register_ring_is_flagged_as_by_the_full_run(monkeypatch):
    text = RING.read_text().replace(*RING_WRONG_FREE)
    assert text != RING.read_text()
    machine, result = _run_ring(text)
    assert any(a is not None for _, _, a, _, _ in result.accelerated)   # it still skips
    got = _findings(text)
    assert got[0] == "buggy"
    assert {code for code, _, _ in got[1]} >= {"AG408", "AG412"}
    assert got == _findings(text, skip=False, monkeypatch=monkeypatch)


def test_a_register_that_does_not_advance_uniformly_stops_the_skip(monkeypatch):
    text = RING.read_text().replace(*RING_JUMP)
    assert text != RING.read_text()
    machine, result = _run_ring(text)
    outcomes = {span.line: how for span, n, a, b, how in result.accelerated if a is None}
    assert not any(a is not None for _, _, a, _, _ in result.accelerated), result.accelerated
    assert "register c_cnt changes inside the loop" in outcomes[46]
    # the full run's race at k = 51, right after the jump, stays (a skip over 24..71 loses it)
    got = _findings(text)
    assert ("AG103", 43, 25) in got[1], got
    assert got == _findings(text, skip=False, monkeypatch=monkeypatch)


def test_a_ring_indexed_by_a_let_of_the_tile_and_k_skips():
    # TileLang's tcgen05 persistent kernels: `phase = tile * 128 + k` names the stage, parity
    # `phase // 3 & 1`; neither the let nor `phase // 3` repeats, `phase % 3` and the parity do
    text = RING.read_text()
    text = text.replace("                for k in range(100):\n"
                        "                    T.mbarrier_wait_parity(mbarrier_1[p_cnt_1[0] % 3 + 3]",
                        "                for k in range(100):\n"
                        "                    phase: T.int32 = w * 100 + k\n"
                        "                    T.mbarrier_wait_parity(mbarrier_1[p_cnt_1[0] % 3 + 3]", 1)
    text = text.replace("                    p_cnt_1[0] = p_cnt_1[0] + 1\n", "")
    text = text.replace("T.bitwise_xor(p_cnt_1[0] % 6 // 3, 1)", "T.bitwise_xor(T.bitwise_and(phase // 3, 1), 1)")
    text = text.replace("p_cnt_1[0] % ", "phase % ")
    assert "p_cnt_1[0] %" not in text and "phase: T.int32" in text
    machine, result = _run_ring(text)
    assert not result.stuck and result.limit_hit is None
    outcomes = {(span.line, a, b, how) for span, n, a, b, how in result.accelerated}
    assert outcomes == {(39, 12, 96, "proved periodic with period 6"),
                        (46, 12, 96, "proved periodic with period 6 (counters c_cnt[0])")}, outcomes
    assert check_text(text, "<test>").verdict == "clean"


# ------------------------------------------------------------ frozen tasks beside a skipping loop
AWS_GEMM = Path(__file__).resolve().parents[1] / "corpus" / "field" / "aws__gemm__gemm__sm_100a.tir"


def test_a_persistent_kernels_epilogue_waiting_for_the_next_tile_does_not_stop_the_skip():
    # TileLang's sm_100a persistent GEMM (examples/aws): a TMA warp and an MMA warp loop over k
    # for every tile, while the epilogue warps wait on tmem_full inside their own unrolled loop
    # over the previous tile's columns. They run no statement during the compared period, so the
    # k loops skip in every tile (before: the epilogue's loop "beside" them did not skip, and the
    # whole block ran again without skipping)
    program = elaborate(parse(AWS_GEMM.read_text(), str(AWS_GEMM)).functions[0])
    result = Machine(program, block={"blockIdx.x": 0}).run()
    assert result.limit_hit is None and not result.skips_mixed and not result.stuck
    outcomes = [(span.line, a, b) for span, n, a, b, how in result.accelerated]
    # inside the while tile loop the k loops compare from their first iteration: the first tile's
    # pipeline is still filling there, so it settles a period later (accelerate.plan `settles`)
    assert set(outcomes) == {(78, 9, 121), (78, 17, 121), (104, 9, 121), (104, 17, 121)}, outcomes
    assert outcomes.count((78, 17, 121)) == outcomes.count((104, 17, 121)) == 1
    tiles = sum(1 for span, *_ in result.accelerated if span.line == 78)
    assert tiles == len(range(0, 2048, 148))   # every tile of block 0 skipped


def test_a_loop_beside_that_runs_during_the_period_stops_the_skip_unless_frozen():
    # the rule itself (Machine._skips_apart): another task in a loop beside the skipping one that
    # runs every iteration lets it skip only when it ran no statement since the compared period
    # began (frozen: it runs none in the skipped periods either); one that ran some would be out
    # of step with the skipped periods. (This builds the two tasks' state directly.)
    from asyncguard.engine.machine import _Frame, _Task
    program = elaborate(parse(AWS_GEMM.read_text(), str(AWS_GEMM)).functions[0])
    machine = Machine(program, block={"blockIdx.x": 0})
    producer, epilogue = (next(s for s in statements(program.body) if getattr(s, "var", None) == var)
                          for var in ("k", "i"))
    mask = np.zeros(machine.T, dtype=bool)
    looping = _Task(mask.copy(), [_Frame(program.body), _Frame(producer.body, producer, 128, 0)], {})
    beside = _Task(mask.copy(), [_Frame(program.body), _Frame(epilogue.body, epilogue, 4, 0)], {})
    beside.frames[-1].skipped = 0                       # it runs all its iterations
    machine.tasks = [looping, beside]
    f = looping.frames[-1]
    f.peers = machine._peer_steps(looping)             # the compared period begins
    assert machine._skips_apart(looping, f, 96) is None          # frozen since: it may skip
    beside.steps += 3                                             # it ran three statements
    why = machine._skips_apart(looping, f, 96)
    assert why is not None and "does not skip the same 96 iterations" in why


# ---------------------------------------------------------------- tile loops of persistent kernels
# TileLang's persistent kernels wrap the pipeline in a short tile loop (`for w in range(19)`) guarded
# by `w * 27 + bx // 4 < 512`, and step the ring's registers inside the inner k loops: per tile they
# move by 128, so the ring repeats every 3 tiles (engine/accelerate.py, Nested and tile loops)
TILES = DATA / "persistent_tile_loop_sm90a.tir"
# single bug in one tile inside the range a plan would skip: in tile 10 the consumer frees no stage
TILE_10_NO_FREE = ("                        T.ptx_arrive_barrier(mbarrier_1[c_cnt_1[0] % 3 + 3])\n",
                   "                        if w != 10:\n"
                   "                            T.ptx_arrive_barrier(mbarrier_1[c_cnt_1[0] % 3 + 3])\n")
TILE_LOOP_LINE = 39


def _registers(machine) -> dict:
    out = {}
    for task in machine.tasks:
        for key in ("p_cnt[0]", "c_cnt[0]"):
            for t, v in zip(task.tids.tolist(), np.broadcast_to(task.env[key], task.tids.shape).tolist()):
                out[key, t] = v
    return out


def _run_tiles(text: str, block: int, skip: bool = True):
    program = elaborate(parse(text, "<test>").functions[0])
    machine = Machine(program, block={"blockIdx.x": block}, **({} if skip else {"accelerate_above": 1 << 62}))
    return machine, machine.run()


def test_the_tile_loop_skips_tiles_and_its_inner_loops_still_skip():
    text = TILES.read_text()
    for block, tiles in ((0, 19), (107, 18)):   # block 107 has no tile 18: its guard turns false there
        machine, result = _run_tiles(text, block)
        assert not result.stuck and result.limit_hit is None
        outcomes = {(span.line, a, b, how) for span, n, a, b, how in result.accelerated}
        # ring % 3 with 128 steps per tile: shift 3 (not the 6 of the parity's % 6); one tile of
        # warm-up, tiles 4..15 skipped (block 107: the range ends before tile 18, where its guard
        # changes); the inner loops skip in each tile that runs
        assert (TILE_LOOP_LINE, 4, 16, "proved periodic with period 3 (counters c_cnt[0], p_cnt[0])") in outcomes
        assert {(line, a, b) for line, a, b, _ in outcomes} == {(TILE_LOOP_LINE, 4, 16), (42, 12, 120), (49, 12, 120)}
        full_machine, full = _run_tiles(text, block, skip=False)
        assert not full.accelerated and 4 * result.steps < full.steps, (result.steps, full.steps)
        # the registers end where the full run leaves them: 128 per tile the block has
        got = _registers(machine)
        assert got == _registers(full_machine)
        assert got["p_cnt[0]", 0] == 128 * tiles and got["c_cnt[0]", 128] == 128 * tiles
        assert got["p_cnt[0]", 128] == 0 and got["c_cnt[0]", 0] == 0   # moved only where stepped


def test_the_tile_kernel_is_clean_and_its_scope_says_the_tiles_skipped():
    r = check_text(TILES.read_text(), "<test>")
    assert r.verdict == "clean", [f.message for f in r.findings]
    (kernel,) = r.kernels
    assert (f"loop at line {TILE_LOOP_LINE} (19 iterations): iterations 4..15 skipped, proved periodic "
            "with period 3 (counters c_cnt[0], p_cnt[0])") in kernel.scope


def test_a_bug_in_one_tile_is_flagged_as_by_the_full_run(monkeypatch):
    text = TILES.read_text().replace(*TILE_10_NO_FREE)
    assert text != TILES.read_text()
    machine, result = _run_tiles(text, 0)
    # the guard `w != 10` changes at tile 10: the skipped range ends there and tile 10 runs
    skipped = {(span.line, a, b) for span, n, a, b, how in result.accelerated if a is not None}
    assert (TILE_LOOP_LINE, 4, 10) in skipped, result.accelerated
    assert {s.span.line for s in result.stuck} == {43, 50}
    got = _findings(text)
    assert got == ("buggy", [("AG408", 43, 25), ("AG408", 50, 25)])
    assert got == _findings(text, skip=False, monkeypatch=monkeypatch)


def test_a_wrong_stage_freed_in_the_tile_kernel_is_flagged_as_by_the_full_run(monkeypatch):
    text = TILES.read_text().replace(*RING_WRONG_FREE)
    assert text != TILES.read_text()
    got = _findings(text)
    assert got[0] == "buggy" and {code for code, _, _ in got[1]} >= {"AG408"}, got
    assert got == _findings(text, skip=False, monkeypatch=monkeypatch)


def test_a_counter_read_outside_the_branch_that_steps_it_stops_the_tile_plan():
    # every thread reads the producer's register, but only the producer threads step it: its
    # step per tile differs between threads and the read is not inside its branch
    text = TILES.read_text().replace(
        "            if w * 27 + bx // 4 < 512:\n",
        "            if w * 27 + bx // 4 < 512:\n"
        "                T.mbarrier_wait_parity(mbarrier_1[p_cnt_1[0] % 3 + 3], T.bitwise_xor(p_cnt_1[0] % 6 // 3, 1))\n", 1)
    assert text != TILES.read_text()
    from asyncguard.engine import accelerate
    from asyncguard.engine.nodes import PLoop, statements
    program = elaborate(parse(text, "<test>").functions[0])
    loop = next(s for s in statements(program.body) if isinstance(s, PLoop) and s.span.line == TILE_LOOP_LINE)
    steps, _, why, nested = accelerate.counters(loop.body, program.views, loop.var, frozenset({"bx"}))
    assert ("p_cnt", 0) not in nested and ("c_cnt", 0) in nested and steps[("c_cnt", 0)] == 128
    plan = accelerate.plan(loop, 19, 0, program, block=(("bx", 0),), tile=True)
    assert plan.jump_to is None, plan


IN_WHILE = '''# from tvm.script import tirx as T
@T.prim_func
def k(C: T.handle("float16", "global")):
    T.func_attr({"thread_extent": {"threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    C_1 = T.decl_buffer((65536,), "float16", data=C)
    tx = T.launch_thread("threadIdx.x", 64)
    S = T.alloc_buffer((4096,), "float16", scope="shared.dyn")
    tile = T.alloc_buffer((1,), "int32", scope="local.var")
    tile[0] = 0
    while tile[0] < 3:
        for k in range(64):
            S[tx + k % 2 * 64] = T.float16(0.0)
            T.tvm_storage_sync("shared")
            C_1[tx] = S[(tx + 1) % 64 + k % 2 * 64]
        tile[0] = tile[0] + 1
'''


def test_a_loop_of_64_trips_inside_a_while_loop_is_planned_and_skips():
    # 64 trips is not more than the threshold (accelerate_above), but the loop runs once per trip
    # of the while loop around it (Machine._in_while): planned, it skips in every tile
    report = check_text(IN_WHILE)
    line = IN_WHILE.splitlines().index("        for k in range(64):") + 1
    assert report.verdict == "clean"
    assert any(s.startswith(f"loop at line {line} (64 iterations): iterations ") and "skipped" in s
               for s in report.kernels[0].scope), report.kernels[0].scope
    # outside a while loop it is planned as well, as a loop that synchronizes (Machine._long); at
    # 16 trips (accelerate_above // 4) it is not: it runs every iteration, silently
    alone = IN_WHILE.replace("    while tile[0] < 3:\n", "    if tile[0] < 3:\n")
    report = check_text(alone)
    assert report.verdict == "clean"
    assert any(s.startswith(f"loop at line {line} (64 iterations): iterations ") for s in report.kernels[0].scope)
    report = check_text(alone.replace("range(64)", "range(16)"))
    assert report.verdict == "clean" and not any("loop at line" in s for s in report.kernels[0].scope)


def test_a_race_in_a_skipping_loop_inside_a_while_loop_is_flagged():
    # without the barrier: the same two races (same lines, threads and loop values) as in the
    # base engine, which ran every iteration
    text = IN_WHILE.replace("            T.tvm_storage_sync(\"shared\")\n", "")
    report = check_text(text)
    lines = text.splitlines()
    write = lines.index("            S[tx + k % 2 * 64] = T.float16(0.0)") + 1
    read = lines.index("            C_1[tx] = S[(tx + 1) % 64 + k % 2 * 64]") + 1
    assert report.verdict == "buggy"
    assert {(f.rule.code, f.line) for f in report.findings} == {("AG201", write), ("AG201", read)}
    assert any("skipped" in s for s in report.kernels[0].scope)



# IN_WHILE with a `for` loop of 3 tiles: too few trips for a tile loop, and not a while loop
IN_FOR = IN_WHILE.replace("    while tile[0] < 3:\n", "    for w in range(3):\n")


def _scope_of(text: str) -> list:
    report = check_text(text)
    return report.kernels[0].scope


def test_a_synchronizing_loop_of_64_trips_inside_a_for_loop_of_few_tiles_is_planned(monkeypatch):
    # 3 x 64 trips: planned like a loop in a while loop (Machine._in_outer), it skips in every tile
    line = IN_FOR.splitlines().index("        for k in range(64):") + 1
    assert any(s.startswith(f"loop at line {line} (64 iterations): iterations ") and "skipped" in s
               for s in _scope_of(IN_FOR)), _scope_of(IN_FOR)
    assert _findings(IN_FOR) == ("clean", [])
    # without the barrier: the races of the run that skips nothing
    racy = IN_FOR.replace("            T.tvm_storage_sync(\"shared\")\n", "")
    got = _findings(racy)
    assert got[0] == "buggy" and {code for code, _, _ in got[1]} == {"AG201"}
    assert got == _findings(racy, skip=False, monkeypatch=monkeypatch)


def test_a_loop_inside_a_for_loop_is_not_planned_when_it_synchronizes_nothing():
    # each thread reads back its own store: no barrier, no arrive, nothing to skip for
    quiet = IN_FOR.replace("            T.tvm_storage_sync(\"shared\")\n", "").replace(
        "C_1[tx] = S[(tx + 1) % 64 + k % 2 * 64]", "C_1[tx] = S[tx + k % 2 * 64]")
    assert quiet != IN_FOR
    assert not any("loop at line" in s for s in _scope_of(quiet))
    assert _findings(quiet) == ("clean", [])
    # with one trip of the outer loop, the 64-trip loop with its barrier is planned as a loop
    # that synchronizes (Machine._long), not as one inside an outer loop
    once = IN_FOR.replace("for w in range(3):", "for w in range(1):")
    assert any("(64 iterations): iterations " in s for s in _scope_of(once)), _scope_of(once)


# a long inner loop that neither waits nor releases anybody and cannot skip (its reads never
# repeat), inside the loop that skips: as the sm_100a GDN backward's `T.unroll(128)` of reads
INNER_READS = IN_WHILE.replace(
    "            C_1[tx] = S[(tx + 1) % 64 + k % 2 * 64]\n",
    "            C_1[tx] = S[(tx + 1) % 64 + k % 2 * 64]\n"
    "            for i in T.unroll(100):\n"
    "                C_1[tx + i * 64] = S[i + 128]\n")


def test_a_loop_that_synchronizes_nothing_and_does_not_skip_leaves_the_skip_standing(monkeypatch):
    from asyncguard.engine.nodes import synchronizes
    lines = INNER_READS.splitlines()
    k_line = lines.index("        for k in range(64):") + 1
    inner_line = lines.index("            for i in T.unroll(100):") + 1
    program = elaborate(parse(INNER_READS, "<test>").functions[0])
    inner = next(s for s in statements(program.body) if getattr(s, "var", None) == "i")
    assert not synchronizes(inner.body)
    scope = _scope_of(INNER_READS)
    # the inner loop ran every iteration; the k loop still skipped (no run again without skipping)
    assert any(s.startswith(f"loop at line {inner_line} (100 iterations): not skipped") for s in scope), scope
    assert any(s.startswith(f"loop at line {k_line} (64 iterations): iterations ") for s in scope), scope
    assert not any("another loop beside it could not skip" in s for s in scope), scope
    # the bytes 128.. no write reaches: the same findings as the run that skips nothing
    got = _findings(INNER_READS)
    assert got == _findings(INNER_READS, skip=False, monkeypatch=monkeypatch)


MLA_WS = DATA.parent.parent / "corpus" / "field" / \
    "deepseek_mla__example_mla_decode_ws__flashattn.main_no_split__sm_90a.tir"


def _loop_at(program, line: int):
    from asyncguard.engine.nodes import PLoop
    (loop,) = [s for s in statements(program.body) if isinstance(s, PLoop) and s.span.line == line]
    return loop


def test_a_synchronizing_loop_of_sixty_four_trips_is_planned():
    # MLA decode ws (sm_90a): the producer's and consumers' `for i_i in range(64)` loops run two
    # pipeline stages each; at accelerate_above (64) trips they ran every iteration, 2 of the
    # kernel's 3.9 s. A loop that synchronizes is planned from accelerate_above // 4 trips; one of
    # register and shared accesses alone is not, and with skipping off (the fallback run) none is
    program = elaborate(parse(MLA_WS.read_text(), str(MLA_WS)).functions[0])
    machine = Machine(program)
    assert machine._long(_loop_at(program, 79), 64)
    assert not machine._long(_loop_at(program, 64), 43)   # `for i in T.unroll(43)`: no sync
    assert not machine._long(_loop_at(program, 79), 16)
    assert not Machine(program, accelerate_above=1 << 62)._long(_loop_at(program, 79), 64)


def test_the_planned_mla_decode_loops_keep_the_finding():
    r = check_text(MLA_WS.read_text(), str(MLA_WS))
    lines = [line for k in r.kernels for line in k.scope]
    assert any(line.startswith("loop at line 79 (64 iterations): iterations ") and "skipped" in line
               for line in lines), lines
    # the consumer warpgroups' softmax denominator race (docs/found-bugs.md, candidates): the same
    # witness as when every iteration ran
    (f,) = [f for f in r.findings if f.rule.code == "AG201"]
    assert f.line == 230 and "thread 0 at line 182 (i=0) and thread 128 at line 230 (i=0)" in f.message


FLASHMLA = (Path(__file__).resolve().parent.parent / "corpus" / "field" /
            "warp_specialize__example_warp_specialize_flashmla__flashattn.main_no_split__sm_90a.tir")


def test_a_thread_that_stopped_arriving_does_not_keep_the_state_from_repeating():
    # TileLang's warp-specialized flashmla: threads whose last arrival on a barrier was before the
    # consumer loops fall one period further behind its phase every period. Only "behind or not"
    # decides anything (Mbarriers._check_run_ahead), so the state signature reads a lag of 2 or
    # more as 2; with the exact lag neither 64-trip loop ever skipped (42,574 statement instances)
    rep = check_text(FLASHMLA.read_text(), str(FLASHMLA))
    assert rep.verdict == "clean"
    scope = rep.kernels[0].scope
    for line in (202, 442):
        assert f"loop at line {line} (64 iterations): iterations 4..61 skipped, proved periodic with period 2" in scope
    assert rep.kernels[0].steps < 10000


def test_a_loop_of_wgmma_issues_does_not_keep_the_loops_beside_it_from_skipping():
    # TileLang's persistent MLA decode (tl.disable_tma_lower): the consumer's 64-stage loop holds
    # `for ki in T.unroll(32): T.ptx_wgmma_ss(...)`, too short to skip. Such a loop neither waits
    # nor releases, so its running every iteration does not make the run "mixed": the producer's
    # and consumer's loops skip together (they ran all 64 x 4 iterations before)
    path = Path(__file__).resolve().parent.parent / "corpus" / "unseen_passcfg" / \
        "deepseek_mla__example_mla_decode_persistent__flashattn.main_split_persistent__sm_90a__notma.tir"
    report = check_text(path.read_text())
    scope = " ".join(s for k in report.kernels for s in k.scope)
    assert "loop at line 98 (64 iterations): iterations 9..60 skipped" in scope, scope
    assert "loop at line 82 (64 iterations): iterations 9..60 skipped" in scope, scope
    # the grid sync its thread 0 never reaches (docs/found-bugs.md entry 9's shape) stays found
    assert ("AG301", 198) in {(f.rule.code, f.line) for f in report.findings}


PERSISTENT = (Path(__file__).resolve().parent.parent / "corpus" / "unseen_versions" /
              "gemm__example_gemm_persistent__matmul_persistent.main_persistent_primitive__sm_90a.tir")


def _scope(report) -> list:
    return [line for k in report.kernels for line in k.scope]


def test_a_tile_loop_with_a_loop_break_lets_its_k_loops_skip():
    # TileLang 0.1.8's persistent GEMM: `for w in range(19): if w * 27 + bx // 4 == 512:
    # T.loop_break()` around the producer's and the consumers' 128-stage K loops. The tile loops
    # cannot skip (a break may end them); that is no disagreement with the K loops inside them,
    # which skip together (it was: every K loop ran all 19 x 128 iterations, 18 s)
    r = check_text(PERSISTENT.read_text(), str(PERSISTENT))
    assert r.verdict == "clean", [f.message for f in r.findings]
    scope = _scope(r)
    assert "loop at line 42 (128 iterations): iterations 12..119 skipped, proved periodic with period 6" in scope
    assert "loop at line 63 (128 iterations): iterations 12..119 skipped, proved periodic with period 6" in scope
    assert "loop at line 39 (19 iterations): not skipped: a T.loop_break may end the loop early" in scope


def test_the_persistent_gemm_with_a_bug_is_still_flagged_when_its_k_loops_skip():
    text = PERSISTENT.read_text()
    arrive = "T.ptx_arrive_barrier(T.get_mbarrier((w * 128 + k) % 3 + 3))"
    assert text.count(arrive) == 1
    r = check_text(text.replace(arrive, "T.evaluate(0)"), "consumer_release_dropped.tir")
    assert r.verdict == "buggy"
    assert {f.rule.code for f in r.findings} == {"AG408"}, [f.message for f in r.findings]
    barrier = 'T.tvm_storage_sync("shared.dyn", 3, 256)'
    r = check_text(text.replace(barrier, "T.evaluate(0)"), "epilogue_barriers_dropped.tir")
    assert "AG201" in {f.rule.code for f in r.findings}, [f.message for f in r.findings]



def test_a_range_holding_a_refuted_iteration_is_not_asked_again(monkeypatch):
    # the consumer's relevant guard `k < 100` refutes the short tail's range (accelerate.short_tails)
    # at an iteration that the longer tail's range holds too: that range is refuted without a
    # second z3 query, and the loops run every iteration, as before
    from asyncguard.prover import periodic
    asked = []   # (expressions, shift, range, the iteration refuted or None), in order
    real = periodic.prove_equal_under_shift

    def recording(exprs, var, shift, ranges, region, *a, **k):
        v = real(exprs, var, shift, ranges, region, *a, **k)
        asked.append((id(exprs), shift, region, v.model.get(var) if v.status == "refuted" else None))
        return v
    monkeypatch.setattr(periodic, "prove_equal_under_shift", recording)
    text = REDUCED.read_text().replace(RELEVANT_GUARD[0], RELEVANT_GUARD[1], 1)
    result = _run(text, 200 * 32)
    assert not result.stuck and result.limit_hit is None
    assert not any(a is not None for _, _, a, _, _ in result.accelerated), result.accelerated
    assert any(k is not None for *_, k in asked)
    for i, (exprs, shift, (lo, hi), _) in enumerate(asked):
        known = [k for e, s, _, k in asked[:i] if (e, s) == (exprs, shift) and k is not None]
        assert not any(lo <= k < hi for k in known), (shift, (lo, hi), known)
    assert any("refuted: an expression changes after the shift" in how
               for _, _, a, _, how in result.accelerated), result.accelerated
    # the consumer's loop (period 4): one query per shift, not one per geometry (5 fixed ones)
    consumer = next(e for e, _, _, k in asked if k is not None)
    assert [shift for e, shift, _, _ in asked if e == consumer] == [4, 8], asked
