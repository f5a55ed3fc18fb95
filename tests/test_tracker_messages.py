"""Messages the sixth tracker round read as wrong (corpus/trackers_r6/MANIFEST.md): a phase given more
transaction bytes than its expect_tx promised completes early (AG407 said it "waits for -1024 more
bytes"), and a parity-1 wait on a fresh mbarrier returns at once (AG410 said "phase -1")."""
from pathlib import Path

from asyncguard.analyze import check_text

R6 = Path(__file__).resolve().parent.parent / "corpus" / "trackers_r6"


def messages(name: str, code: str) -> list:
    path = R6 / name
    return [f.message for f in check_text(path.read_text(), str(path)).findings if f.rule.code == code]


def test_surplus_transaction_bytes_complete_the_phase_early():
    (msg,) = messages("mirage705_splitk_expect_tx_less_than_tma_box_sm100a.tir", "AG407")
    assert "deliver 1024 transaction bytes more than its expect_tx promised" in msg
    assert "completes once the promised bytes land" in msg and "-1024" not in msg


def test_a_wait_that_returns_at_once_on_a_fresh_barrier_is_named_so():
    msgs = messages("trtllm15338_ws_consumer_polls_stale_stage_barrier_sm90a.tir", "AG410")
    assert msgs and all("phase -1" not in m for m in msgs)
    assert any("the wait that returns at once (parity 1 on the fresh barrier" in m for m in msgs)
