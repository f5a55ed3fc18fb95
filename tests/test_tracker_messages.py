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


R7 = R6.parent / "trackers_r7"


def test_a_named_barrier_short_of_partners_names_the_count_it_waits_for():
    """tile-ai/tilelang#2777 (tracker round 7): 64 threads reach a `tl::NamedBarrier<128>`; the
    message says what the barrier expects, not only who came."""
    text = (R7 / "tilelang2777_partial_reduce_named_barrier_count_sm90a.tir").read_text()
    (f,) = [f for f in check_text(text).findings if f.rule.code == "AG302"]
    assert "named barrier 1 at line 43 expects 128 threads: 64 thread(s) arrive" in f.message
    assert f.witness["expected"] == 128
