"""Semantics of the models and the machine, one rule at a time, on small kernels."""
import textwrap

import numpy as np

from asyncguard.analyze import check_text
from asyncguard.models.launch import shuffle_elect

HEAD = '''# from tvm.script import tirx as T
@T.prim_func
def k(A: T.handle("float16", "global"), C: T.handle("float16", "global")):
    T.func_attr({{"thread_extent": {{"threadIdx.x": {threads}, "threadIdx.y": 1, "threadIdx.z": 1}}}})
    C_1 = T.decl_buffer((65536,), "float16", data=C)
    tx = T.launch_thread("threadIdx.x", {threads})
    S = T.alloc_buffer((4096,), "float16", scope="shared.dyn")
'''
COPY = ('T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float16"), S.data, {off} + tx * 8, 1, 2), '
        'T.tvm_access_ptr(T.type_annotation("float16"), A, tx * 8, 1, 1), 8)')


def kernel(body: str, threads: int = 64) -> str:
    return HEAD.format(threads=threads) + textwrap.indent(textwrap.dedent(body).strip() + "\n", "    ")


def rules(text: str) -> list:
    return [(f.rule.code, f.line) for f in check_text(text).findings]


def test_wait_all_covers_copies_never_committed():
    # T.ptx_wait_group(0) is cp.async.wait_all = commit_group; wait_group 0 (PTX ISA)
    text = kernel(f"""
        {COPY.format(off=0)}
        T.ptx_wait_group(0)
        T.tvm_storage_sync("shared")
        C_1[tx] = S[(tx * 8 + 8) % 512]
    """)
    assert rules(text) == []


def test_wait_one_does_not_cover_an_uncommitted_copy():
    text = kernel(f"""
        {COPY.format(off=0)}
        T.ptx_wait_group(1)
        T.tvm_storage_sync("shared")
        C_1[tx] = S[(tx * 8 + 8) % 512]
    """)
    found = check_text(text).findings
    codes = {f.rule.code for f in found}
    assert "AG101" in codes
    f = next(f for f in found if f.rule.code == "AG101")
    assert f.line == 11 and "never committed" in f.witness["missing"]


def test_empty_groups_count_toward_wait_group():
    # copy, commit, then two EMPTY commits: wait_group(2) completes the copy's group
    text = kernel(f"""
        {COPY.format(off=0)}
        T.ptx_commit_group()
        T.ptx_commit_group()
        T.ptx_commit_group()
        T.ptx_wait_group(2)
        T.tvm_storage_sync("shared")
        C_1[tx] = S[(tx * 8 + 8) % 512]
    """)
    assert rules(text) == []
    # ... and wait_group(3) does not
    assert ("AG101", 14) in rules(text.replace("T.ptx_wait_group(2)", "T.ptx_wait_group(3)"))


def test_witness_names_threads_loops_bytes_and_the_wait():
    text = kernel(f"""
        for k in T.serial(4):
            T.tvm_storage_sync("shared")
            {COPY.format(off="k % 2 * 1024")}
            T.ptx_commit_group()
            T.ptx_wait_group(1)
            T.tvm_storage_sync("shared")
            C_1[k * 64 + tx] = S[k % 2 * 1024 + (63 - tx) * 8]
        T.ptx_wait_group(0)
    """)
    (f,) = check_text(text).findings
    assert f.rule.code == "AG101" and f.rule.kind == "race" and f.line == 14
    w = f.witness
    assert w["first"]["line"] == 10 and w["first"]["op"] == "ptx_cp_async"
    assert w["second"]["line"] == 14 and w["second"]["access"] == "read"
    assert w["first"]["loops"] == {"k": 0} and w["second"]["loops"] == {"k": 0}
    assert w["first"]["thread"] == 63 and w["second"]["thread"] == 0
    assert w["second"]["bytes"] == [1008, 1010]          # (63 - 0) * 8 elements * 2 bytes
    assert "ptx_wait_group(1) at line 12" in w["missing"]


def test_issuer_reading_its_own_bytes_needs_no_barrier():
    text = kernel(f"""
        {COPY.format(off=0)}
        T.ptx_commit_group()
        T.ptx_wait_group(0)
        C_1[tx] = S[tx * 8 + 3]
    """)
    assert rules(text) == []


def test_shuffle_elect_lanes():
    assert np.flatnonzero(shuffle_elect(256, 0)).tolist() == [0]
    assert np.flatnonzero(shuffle_elect(256, 128)).tolist() == [0, 128]
    assert np.flatnonzero(shuffle_elect(256, 32)).tolist() == list(range(0, 256, 32))


def test_elected_writer_then_barrier_then_broadcast_read_is_clean():
    text = kernel("""
        if T.tl_shuffle_elect(0):
            S[0] = T.float16(1.0)
        T.tvm_storage_sync("shared")
        C_1[tx] = S[0]
    """)
    assert rules(text) == []
    assert [c for c, _ in rules(text.replace('    T.tvm_storage_sync("shared")\n', ""))] == ["AG201"]


def test_same_statement_write_write_by_two_threads():
    text = kernel("""
        S[tx // 2] = T.Cast("float16", tx)
    """)   # (different values: one value stored by both threads would not be a race)
    (f,) = check_text(text).findings
    assert f.rule.code == "AG201" and f.witness["pattern"] == "write-after-write"


def test_loop_bound_on_block_index_is_checked_for_several_blocks():
    text = kernel(f"""
        for k in T.serial(bx):
            {COPY.format(off=0)}
            T.ptx_commit_group()
            C_1[tx] = S[tx * 8]
        T.ptx_wait_group(0)
    """).replace('"threadIdx.x": 64,', '"blockIdx.x": 3, "threadIdx.x": 64,').replace(
        '    tx = T.launch_thread', '    bx = T.launch_thread("blockIdx.x", 3)\n    tx = T.launch_thread')
    (f,) = [f for f in check_text(text).findings if f.rule.code == "AG101"]
    assert f.witness["block"] == {"blockIdx.x": 1}


def test_data_dependent_branch_is_unknown_not_clean():
    text = kernel("""
        if S[0] > T.float16(0.0):
            T.tvm_storage_sync("shared")
    """)
    rep = check_text(text)
    assert rep.verdict == "unknown"
    assert any(f.rule.code == "AG001" and f.line == 8 for f in rep.findings)


def test_unknown_builtin_with_shared_pointer_is_unsupported():
    text = kernel("""
        T.some_future_op(T.tvm_access_ptr(T.type_annotation("float16"), S.data, 0, 64, 3))
    """)
    rep = check_text(text)
    assert rep.verdict == "unknown" and rep.findings[0].line == 8


def test_too_many_steps_says_so_quickly():
    # period 2 * 10^6: too long to skip by periodicity, so the step limit decides
    text = kernel("""
        for k in T.serial(1000000000):
            S[tx + k // 1000000 % 2] = T.float16(0.0)
            T.tvm_storage_sync("shared")
    """)
    from asyncguard.analyze import Limits
    rep = check_text(text, limits=Limits(max_steps=10_000))
    assert rep.verdict == "unknown"
    assert any(f.rule.code == "AG002" for f in rep.findings)


def test_a_billion_periodic_iterations_are_proved_not_run():
    text = kernel("""
        for k in T.serial(1000000000):
            S[tx + k % 2 * 64] = T.float16(0.0)
            T.tvm_storage_sync("shared")
    """)
    rep = check_text(text)
    assert rep.verdict == "clean" and rep.kernels[0].steps < 1000
    assert any("skipped, proved periodic" in s for s in rep.kernels[0].scope)


def test_race_index_agrees_with_a_scan_of_every_record(monkeypatch):
    """The per-statement interval index (engine/state/memory.py `_Group`) names the same first racing
    record as comparing the access with every live record of the statement, dominated intervals
    included; and a statement re-run on the same bytes without a barrier keeps one record (each
    supersedes the one before: Memory._supersede_plain)."""
    from asyncguard.engine import machine as M
    members, sizes, compared, held = {}, [], [], []
    add, remove, first_bad = M._Group.add, M._Group.remove, M._Group.first_bad

    def add_(g, rec):
        members.setdefault(id(g), {})[rec.id] = rec
        held.append(len(members[id(g)]))
        add(g, rec)

    def remove_(g, rids, **kw):
        for r in rids:
            members[id(g)].pop(r)
        remove(g, rids, **kw)

    def scan(g, rec, vc):
        for rid, old in sorted(members[id(g)].items()):
            ov = (rec.lo[:, None] < old.hi[None, :]) & (old.lo[None, :] < rec.hi[:, None])
            u, t = np.broadcast_arrays(rec.tids[:, None], old.tids[None, :])
            if (ov & (u != t) & (vc[u, t] < old.clk[None, :])).any():
                return rid
        return None

    def checked(g, rec, vc):
        got = first_bad(g, rec, vc)
        compared.append(got)
        sizes.append(sum(len(r[0]) for r in g.runs))   # indexed when first asked
        assert got == scan(g, rec, vc)
        return got

    monkeypatch.setattr(M._Group, "add", add_)
    monkeypatch.setattr(M._Group, "remove", remove_)
    monkeypatch.setattr(M._Group, "first_bad", checked)
    bodies = [
        """
        for k in T.serial(100):
            S[(43 * tx + 7 * k) % 4096] = T.float16(0.0)
            S[5] = T.float16(0.0)
        """,
        """
        for k in T.serial(40):
            S[tx * 2 + k % 2] = T.float16(0.0)
            C_1[tx] = S[(tx * 2 + 64 * k) % 4096]
            if k % 7 == 3:
                T.tvm_storage_sync("shared")
            if tx < 32:
                S[(tx + 3 * k) % 4096 + 2048] = S[tx * 2]
        """,
        """
        for k in T.serial(60):
            S[tx] = T.float16(0.0)
            C_1[tx] = S[tx]
            S[tx * 2 + 1024 + k % 3] = T.float16(0.0)
            if k == 50:
                C_1[tx] = S[(tx + 1) % 128]
        """,
    ]
    for body in bodies:
        check_text(kernel(body, threads=128))
    # (the repeated S[5] and S[tx] stores supersede their previous instance and reach the index less)
    assert len(compared) > 40 and any(c is not None for c in compared)
    members.clear()
    sizes.clear()
    held.clear()
    rep = check_text(kernel("""
        for k in T.serial(200):
            S[tx] = T.float16(0.0)
    """, threads=128))
    # one record live, momentarily two (the new one and the one it supersedes): the state repeats
    # and the loop skips (before, 200 records piled up and every iteration ran)
    assert max(held) == 2 and len(held) < 20
    assert rep.verdict == "clean" and any("skipped, proved periodic" in s for s in rep.kernels[0].scope)
    assert max(sizes, default=128) == 128   # one interval per thread, not one per thread and iteration


def test_race_index_on_random_intervals_and_clocks():
    """`_Group` against a scan of whole records: random intervals (lengths 0..24, several per
    thread), clocks that grow by releases, and retirement as the machine does it."""
    from asyncguard.engine.machine import Record, _Group
    from asyncguard.events import AccessKind
    from asyncguard import ir
    rng = np.random.default_rng(7)
    T_ = 16
    vc = np.zeros((T_, T_), dtype=np.int64)
    vc[np.arange(T_), np.arange(T_)] = 1
    g, live, found, rid = _Group(AccessKind.WRITE, 0, "store", small=0), {}, 0, 0

    def rec(n):
        nonlocal rid
        tids = rng.integers(0, T_, n)
        lo = rng.integers(0, 64, n) if rng.random() < 0.5 else rng.choice([8, 16, 24], n)
        hi = lo + (rng.integers(0, 25, n) if rng.random() < 0.5 else 8)
        rid += 1
        return Record(rid, AccessKind.WRITE, tids, lo, hi, vc[tids, tids].copy(), ir.NO_SPAN,
                      "store", "S", 0, 2, {}, owner=tids)

    for step in range(600):
        r = rec(int(rng.integers(1, 12)))
        want = None
        for old in live.values():   # by id
            ov = (r.lo[:, None] < old.hi[None, :]) & (old.lo[None, :] < r.hi[:, None])
            u, t = np.broadcast_arrays(r.tids[:, None], old.tids[None, :])
            if (ov & (u != t) & (vc[u, t] < old.clk[None, :])).any():
                want = old.id
                break
        assert g.first_bad(r, vc) == want
        found += want is not None
        g.add(r)
        live[r.id] = r
        if rng.random() < 0.3:   # u acquires t's clock; t's later accesses are not covered
            u, t = rng.integers(0, T_, 2)
            vc[u] = np.maximum(vc[u], vc[t])
            vc[t, t] += 1
        if rng.random() < 0.05:  # a barrier: retire what everyone knows of
            vc[:] = vc.max(axis=0)
            vc[np.arange(T_), np.arange(T_)] += 1
        if step % 10 == 0:
            known = vc.min(axis=0)
            gone = [i for i, o in live.items() if (known[o.tids] >= o.clk).all()]
            if gone:
                g.remove(gone)
                for i in gone:
                    del live[i]
    assert found > 50 and len(g.kept) + len(g.pending) == len(live)   # pending: added, not asked yet


def test_every_event_has_exactly_one_owner():
    """engine/state: each event class of asyncguard/events.py is handled by one feature (or the
    scheduler itself), so an event a newcomer adds without a state module cannot pass unseen."""
    import dataclasses
    import inspect

    from asyncguard import events
    from asyncguard.engine import machine as M
    kinds = {c for _, c in inspect.getmembers(events, inspect.isclass)
             if dataclasses.is_dataclass(c) and c.__module__ == events.__name__}
    claimed = [e for _, cls in M.FEATURES for e in cls.EVENTS]
    assert len(claimed) == len(set(claimed))
    assert kinds == set(claimed) | set(M.SCHEDULER_EVENTS)


# ---------------------------------------------------------------- plain records superseded
SUPERSEDE = '''# from tvm.script import tirx as T
@T.prim_func
def k(C_desc: T.handle("uint8x128", "grid_constant"), C: T.handle("float16", "global")):
    T.func_attr({"thread_extent": {"threadIdx.x": 96, "threadIdx.y": 1, "threadIdx.z": 1}})
    C_1 = T.decl_buffer((65536,), "float16", data=C)
    tx = T.launch_thread("threadIdx.x", 96)
    S = T.alloc_buffer((4096,), "float16", scope="shared.dyn")
    if tx < 64:
        for k in T.serial(3):
            if tx < 32:
                S[tx] = T.float16(0.0)
            if k == 0:
                T.tvm_storage_sync("shared", 1, 64)
        if tx == 32:
            T.tma_store(C_desc, T.tvm_access_ptr(T.type_annotation("float16"), S.data, 0, 32, 1), 0, 0, 0, 0)
            T.tma_store_arrive()
            T.tma_store_wait(0, T.bool(True))
'''


def test_a_store_superseded_by_its_threads_next_one_keeps_its_proxy_check():
    # warp 0 stores S[0:32] three times; warp 1 passes the named barrier after the first store
    # only (warp 2 never synchronizes, so no record retires), then TMA-stores S. The third
    # store supersedes the second in the race check (Memory._supersede_plain): the race with the
    # TMA store is reported on the newest (k=2). The first store (k=0) is ordered before the
    # TMA store but never proxy-fenced: AG405 on it. It left the race check when the second
    # came, but the proxy check still has it (Memory.shadow); dropped outright, AG405 was lost.
    report = check_text(SUPERSEDE)
    store = SUPERSEDE.splitlines().index("                S[tx] = T.float16(0.0)") + 1
    tma = SUPERSEDE.splitlines().index("            T.tma_store(C_desc, T.tvm_access_ptr(T.type_annotation("
                                       "\"float16\"), S.data, 0, 32, 1), 0, 0, 0, 0)") + 1
    assert report.verdict == "buggy"
    got = {(f.rule.code, f.line): f for f in report.findings}
    assert set(got) == {("AG201", tma), ("AG405", tma)}
    assert got["AG201", tma].witness["first"]["line"] == store
    assert got["AG201", tma].witness["first"]["loops"] == {"k": 2}
    assert got["AG405", tma].witness["first"]["loops"] == {"k": 0}


def test_superseded_reads_keep_the_race_with_a_later_write():
    # warp 0 reads S[32:64] in every iteration; warp 1 overwrites them once, after the first
    # iteration's barrier: unordered with the reads of k=1 and k=2. The k=2 read repeats the k=1
    # one with nothing between (Memory._read_key), so the k=1 record stands for both and the
    # witness names k=1; checked in full, the k=2 read supersedes it and the witness names k=2
    text = SUPERSEDE.replace("                S[tx] = T.float16(0.0)\n", "                C_1[tx] = S[tx + 32]\n") \
        .replace("        if tx == 32:\n            T.tma_store", "        if tx >= 32:\n            S[tx] = "
                 "T.float16(1.0)\n        if tx == 96:\n            T.tma_store")
    report = check_text(text)
    write = text.splitlines().index("            S[tx] = T.float16(1.0)") + 1
    assert report.verdict == "buggy"
    (f,) = report.findings
    assert (f.rule.code, f.line) == ("AG201", write) and "write-after-read" in f.message
    assert f.witness["first"]["line"] == write - 4 and f.witness["first"]["loops"] == {"k": 1}


def test_byte_sets_answer_meets_by_content():
    # ByteSets asks `meets` once per pair of distinct byte sets: records with equal (lo, hi)
    # share an id, and every answer is the one `meets` gives for the records themselves
    import numpy as np
    from asyncguard.engine.state.memory import ByteSets, Record, meets
    from asyncguard.events import AccessKind

    def rec(i, lo):
        lo = np.asarray(lo, dtype=np.int64)
        return Record(i, AccessKind.WRITE, np.arange(len(lo)), lo, lo + 4, np.zeros(len(lo), np.int64),
                      None, "store", "B", 0, 4, {})

    sets = ByteSets()
    a, a_again, b = rec(0, [0, 8, 16]), rec(1, [0, 8, 16]), rec(2, [4, 12, 20])
    new_hit, new_miss = rec(3, [8]), rec(4, [4])
    assert sets.id_of(a) == sets.id_of(a_again) != sets.id_of(b)
    for new in (new_hit, new_miss):
        for old in (a, a_again, b):
            assert sets.meets(new, old) == meets(new, old)
    assert sets.meets(new_hit, a) and not sets.meets(new_miss, a) and sets.meets(new_miss, b)
    assert len(sets.answers) == 4   # (hit, a), (hit, b), (miss, a), (miss, b): a_again asked nothing new
