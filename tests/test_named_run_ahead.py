"""`bar.arrive` running a phase ahead (AG303, engine/state/barriers.py `_check_run_ahead`;
docs/model.md "Named barriers"). The vLLM CUTLASS MLA hang (vllm-project/vllm#26026) is
corpus/trackers_r2's pair; the PTX ISA's producer/consumer handshake over two named barriers,
where each side's next `bar.arrive` follows its `bar.sync` on the other barrier, stays clean."""
import pathlib

from asyncguard.analyze import check_text

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAIR = ROOT / "corpus" / "trackers_r2" / "vllm26026_mla_epilogue_named_barrier_arrive_sm100a"

# warp 0 fills buf, bar.arrive(FULL = 1); warp 1 bar.sync(1), reads, bar.arrive(EMPTY = 2);
# warp 0 bar.sync(2) before it refills (the ISA's producer/consumer example, in a loop)
HANDSHAKE = '''@T.prim_func
def handshake(Out: T.handle("float32", "global")):
    Out_1 = T.decl_buffer((64,), data=Out)
    bx = T.launch_thread("blockIdx.x", 1)
    buf = T.alloc_buffer((32,), scope="shared")
    tx = T.launch_thread("threadIdx.x", 64)
    for it in range(4):
        if tx < 32:
            if it > 0:
                T.tvm_storage_sync("shared", 2, 64)
            buf[tx] = T.float32(it)
            T.named_barrier_arrive(1, 64)
        else:
            T.tvm_storage_sync("shared", 1, 64)
            Out_1[tx] = buf[tx - 32]
            T.named_barrier_arrive(2, 64)
'''

# the producer no longer waits for the consumer before its next arrival on FULL
NO_EMPTY_WAIT = HANDSHAKE.replace("            if it > 0:\n                T.tvm_storage_sync(\"shared\", 2, 64)\n", "")


def findings(rep) -> list:
    return [(f.rule.code, f.line) for f in rep.findings]


def test_vllm_26026_buggy_is_run_ahead():
    rep = check_text((PAIR.parent / (PAIR.name + ".tir")).read_text())
    assert rep.verdict == "buggy"
    assert findings(rep) == [("AG303", 17)]
    f = rep.findings[0]
    assert "threads 0..127" in f.message and "bar.arrive at line 17" in f.message
    assert f.witness["waiters"] == "160..191" and f.witness["expected"] == 160


def test_vllm_26026_fixed_is_clean():
    rep = check_text((PAIR.parent / (PAIR.name + "_fixed.tir")).read_text())
    assert rep.verdict == "clean", findings(rep)


def test_handshake_over_two_barriers_is_clean():
    rep = check_text(HANDSHAKE)
    assert rep.verdict == "clean", findings(rep)


def test_handshake_without_the_producer_wait_runs_ahead():
    rep = check_text(NO_EMPTY_WAIT)
    assert rep.verdict == "buggy"
    codes = {c for c, _ in findings(rep)}
    assert ("AG303", 10) in findings(rep)
    # the refill of buf also races with the consumer's read: the same missing wait, seen as data
    assert "AG201" in codes


def test_fix_makes_the_arrival_wait():
    from asyncguard.repair import repair_text
    text = (PAIR.parent / (PAIR.name + ".tir")).read_text()
    r = repair_text(text, str(PAIR))
    assert r.status == "fixed"
    changed = [b for a, b in zip(text.splitlines(), r.new_text.splitlines()) if a != b]
    assert changed == ['            T.tvm_storage_sync("shared", 1, 160)']
    assert check_text(r.new_text).verdict == "clean"
