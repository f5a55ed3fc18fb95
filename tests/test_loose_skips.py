"""A run whose loops disagree (one skipped, another ran every iteration) is run again without
skipping only when some skip was *loose*: another thread, at no loop beside the skipping one and
not frozen through its compared period, ran meanwhile and may have followed the skipped periods
outside a matched loop (engine/machine.py `_loose`, RunResult.loose). TileLang's stream-K 2-CTA
GEMM lowered for Jetson Thor (20 SMs) runs 102 data-parallel waves: with more than 16 waves its
wave loops are planned, cannot skip, and made every block's run mixed, so its K loops ran all 128
iterations in every wave."""
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


def _waves(n: int) -> str:
    # the same kernel with n waves per block instead of 102 (a test-sized run)
    text = THOR_STREAMK.read_text()
    assert text.count("T.grid(102, 128)") == 1 and text.count("range(102)") == 2
    return text.replace("T.grid(102, 128)", f"T.grid({n}, 128)").replace("range(102)", f"range({n})")


def test_a_task_that_ran_outside_a_loop_beside_makes_the_skip_loose():
    program = elaborate(parse(AWS_GEMM.read_text(), str(AWS_GEMM)).functions[0])
    machine = Machine(program, block={"blockIdx.x": 0})
    loop = next(s for s in statements(program.body) if getattr(s, "var", None) == "k")
    mask = np.zeros(machine.T, dtype=bool)
    looping = _Task(mask.copy(), [_Frame(program.body), _Frame(loop.body, loop, 128, 0)], {})
    other_mask = mask.copy()
    other_mask[200] = True
    waiting = _Task(other_mask, [_Frame(program.body)], {})     # straight-line code, no loop
    machine.tasks = [looping, waiting]
    f = looping.frames[-1]
    f.peers = machine._peer_steps(looping)              # the compared period begins
    # a task forked from the looping one meanwhile (its elected thread, in the same iteration of
    # the same loop) leaves the verdict alone, though the tasks are no longer the same set
    machine.tasks.append(_Task(mask.copy(), [_Frame(program.body), f.copy()], {}))
    machine.tasks[-1].steps = 1
    assert machine._frozen(looping, f) == []           # (`_frozen` gives up on any fork)
    assert not machine._loose(looping, f)
    waiting.steps += 2                                   # it ran two statements meanwhile
    assert machine._loose(looping, f)


def test_thors_stream_k_gemm_skips_its_k_loops_in_every_wave_without_a_second_run():
    rep = check_text(_waves(20), THOR_STREAMK.name)
    assert rep.verdict == "clean"
    scope = [s for k in rep.kernels for s in k.scope]
    assert not any("run again without skipping" in s or "thrown away" in s for s in scope), scope
    # the consumer's and the producer's K loops skip (line 158, line 114), the wave loops do not
    assert any(s.startswith("loop at line 158 (128 iterations): iterations ") for s in scope), scope
    assert any(s.startswith("loop at line 114 (128 iterations): iterations ") for s in scope), scope


def test_a_producer_that_stops_waiting_for_free_stages_is_flagged_in_the_waves():
    # the TMA producer of the data-parallel waves no longer waits for the MMA to free a stage:
    # the same findings as with skipping off (checked when this test was written, 40 s)
    text = _waves(20)
    wait = ("                    T.mbarrier_wait_parity(consumed_1[phase_2[0] % 6], "
            "T.bitwise_xor(T.bitwise_and(phase_2[0] // 6, 1), 1))\n")
    assert text.count(wait) == 2    # the stream-K part's and the waves'
    head, tail = text.split("T.grid(20, 128):\n")
    rep = check_text(head + "T.grid(20, 128):\n" + tail.replace(wait, "", 1), THOR_STREAMK.name)
    got = sorted({(f.rule.code, f.line) for f in rep.findings})
    assert got == [("AG103", 118), ("AG103", 122), ("AG401", 171), ("AG402", 118), ("AG402", 122),
                   ("AG406", 111), ("AG406", 123), ("AG408", 158), ("AG408", 258), ("AG412", 117),
                   ("AG412", 120), ("AG412", 123)], got
