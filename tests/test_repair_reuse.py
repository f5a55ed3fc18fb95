"""The repair oracle reuses its checks (a complete stop-early check as the full one, the proof's
evidence from minimise's trials, a symbolic-size candidate run first where the last one
failed): every answer must be the one a check from scratch gives. Work, not seconds."""
from __future__ import annotations

from pathlib import Path

from asyncguard.analyze import check_text
from asyncguard.repair import apply_edits, repair_text
from asyncguard.repair.candidates import Generator
from asyncguard.repair.redundant import _removal, _sync_stmts, lint_text
from asyncguard.repair.search import Oracle, best_candidate, count_site
from asyncguard.repair.tree import Tree

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ROOT / "corpus" / "variants"
REAL = ROOT / "corpus" / "real"


def _candidates(oracle: Oracle, text: str) -> list:
    gen = Generator(Tree(text, "k.tir", module=oracle.module), lambda n: n)
    out = []
    for f in oracle.base:
        for c in gen.for_finding(f):
            if c not in out:
                out.append(c)
    return out


def _keys(findings) -> list:
    return sorted((f.rule.code, f.line, f.col, f.message) for f in findings)


def test_a_complete_stop_early_check_is_the_full_check():
    text = (VARIANTS / "copy_pipelined_sm80_s1__drop-wait_L20.tir").read_text()
    oracle = Oracle(text, "k.tir")
    assert oracle.base and not oracle.sized
    cands = _candidates(oracle, text)
    assert len(cands) >= 3
    reused = 0
    for c in cands:
        fresh = Oracle(text, "k.tir").problems(list(c))     # a full check from scratch
        clean = oracle.clean(list(c))
        calls = oracle.calls
        ps = oracle.problems(list(c))
        reused += oracle.calls == calls                     # no second check of the same text
        assert clean == (fresh == [])
        assert _keys(ps) == _keys(fresh)
        assert _keys(oracle.problems(list(c))) == _keys(fresh)   # mapped again: same lines
    assert reused == len(cands)


def test_the_proof_evidence_is_a_problem_of_the_full_check():
    text = (VARIANTS / "copy_pipelined_sm80_s1__drop-wait_L20.tir").read_text()
    rep = repair_text(text, "k.tir")
    assert rep.status == "fixed" and rep.fix.safety == "proved"
    full = Oracle(text, "k.tir")
    edits = list(rep.fix.edits)
    for e in edits:
        trials = [[x for x in edits if x != e]]
        site = count_site(e)
        if site is not None and site[1](site[0] + 1) is not None:
            trials.append([site[1](site[0] + 1) if x == e else x for x in edits])
        for trial in trials:
            codes = {f.rule.code for f in full.problems(trial)}
            assert codes                                     # not clean from scratch
    for kind, what, codes in rep.fix.proof:
        assert codes, (kind, what)
    # every code the proof names comes back in the full check of its trial
    named = {c for _, _, codes in rep.fix.proof for c in codes}
    from_scratch = set()
    for e in edits:
        from_scratch |= {f.rule.code for f in full.problems([x for x in edits if x != e])}
        site = count_site(e)
        if site is not None and site[1](site[0] + 1) is not None:
            from_scratch |= {f.rule.code for f in
                             full.problems([site[1](site[0] + 1) if x == e else x for x in edits])}
    assert named <= from_scratch


def test_scoring_skips_full_checks_that_cannot_win_with_the_same_best():
    """No candidate of this two-block kernel's first round is clean, so the search scores them
    by their full checks. A candidate whose stop-early check (block 1) already found as many
    problems as the best so far is not checked in full: the same best, fewer checks, and every
    problem a stop-early check found is among its full check's."""
    text = (VARIANTS / "fa_fwd_causal_sm80_s2__drop-commit_L99.tir").read_text()
    runs = {}
    for bound in (True, False):
        oracle = Oracle(text, "k.tir")
        assert oracle.base and not oracle.sized
        cands = _candidates(oracle, text)[:16]
        assert not any(oracle.clean(list(c)) for c in cands)
        seen = [oracle.seen_problems(list(c)) for c in cands]      # block 1's problems
        assert all(seen)
        calls = oracle.calls
        best = best_candidate(oracle, [], cands, oracle.base, bound=bound)
        runs[bound] = (best[:2], best[2], oracle.calls - calls)
        if not bound:      # every candidate checked in full: its problems include block 1's
            for c, s in zip(cands, seen):
                assert s <= {(f.rule.code, f.line) for f in oracle.problems(list(c))}, c
    assert runs[True][:2] == runs[False][:2]
    assert [e.describe() for e in runs[True][1]] == ["line 106: `T.ptx_wait_group(1)`"]
    assert runs[True][2] < runs[False][2] == len(cands)


def test_the_scan_runs_the_failing_block_first_with_the_same_verdicts_and_evidence():
    """The unedited kernel runs clean in block 0 and fails in block 1: after the first
    candidate, the scan runs block 1 first. Same verdicts as checks in the blocks' own order,
    and the proof's evidence of a scanned text is that of a check in their own order."""
    text = (VARIANTS / "fa_fwd_causal_sm80_s2__drop-commit_L99.tir").read_text()
    oracle, natural = Oracle(text, "k.tir"), Oracle(text, "k.tir")
    cands = _candidates(oracle, text)[:10]
    for c in cands:
        assert oracle.clean(list(c), failing_first=True) == natural.clean(list(c))
    assert oracle.failing_blocks[0] == {"blockIdx.x": 1}
    reordered = [c for c in cands if apply_edits(text, list(c))[0] in oracle.seen_memo]
    assert len(reordered) == len(cands) - 1          # all but the first, run before any failed
    for c in reordered[:3]:
        assert _keys(oracle.evidence(list(c))) == _keys(natural.evidence(list(c)))
        assert oracle.seen_problems(list(c)) <= {(f.rule.code, f.line) for f in natural.problems(list(c))}


def test_the_search_puts_the_collector_thresholds_back():
    import gc
    before = gc.get_threshold()
    text = (VARIANTS / "copy_pipelined_sm80_s1__drop-wait_L20.tir").read_text()
    assert repair_text(text, "k.tir").status == "fixed"
    assert gc.get_threshold() == before


def test_symbolic_size_candidates_run_where_the_last_failed_with_the_same_verdicts():
    text = (REAL / "gemm_sm80_dynamic_k_s2_128x128x32.tir").read_text()
    buggy = text.replace("            T.ptx_wait_group(1)\n", "            T.ptx_wait_group(2)\n", 1)
    oracle = Oracle(buggy, "k.tir")
    assert oracle.base and oracle.sized and oracle.first_sizes
    cands = _candidates(oracle, buggy)[:4]
    from asyncguard.repair.edits import Edit
    line = buggy.splitlines().index("            T.ptx_wait_group(2)") + 1
    cands.append((Edit(line, "replace", "            T.ptx_wait_group(1)", "", "lower the wait count"),))
    verdicts = []
    for c in cands:
        new, _ = apply_edits(buggy, list(c))
        scratch = Oracle(buggy, "k.tir")
        full = scratch.problems(list(c))                     # every planned size, no early stop
        verdicts.append(oracle.clean(list(c)))
        assert verdicts[-1] == (full == []), c
    assert verdicts[-1] is True and not all(verdicts)
    assert oracle.problems(list(cands[-1])) == []


def test_lint_verdicts_equal_checks_from_scratch():
    text = (REAL / "online_softmax_sm80_s2_t128.tir").read_text()
    found = {f.line for f in lint_text(text, "k.tir") if f.rule.code in ("AG601", "AG602")}
    tree = Tree(text, "k.tir")
    redundant = set()
    for s, _ in _sync_stmts(tree):
        new, _ = apply_edits(text, [_removal(tree, s)])
        if not check_text(new, "k.tir").findings:            # clean without it, from scratch
            redundant.add(s.span.line)
    assert found == redundant and redundant


def test_a_candidate_completing_hundreds_of_phases_keeps_its_findings():
    """A wrong candidate arrive (32 threads at a time on a count-1 mbarrier) completes one phase
    per arriving thread: 256 phases in this run. Those phases retire records once per statement
    and a wait counts the phases it knows complete on its threads' least clocks (the repair
    search's slowest checks); the findings are the ones the per-phase retirement and the
    per-row count gave, recorded before that change."""
    text = (VARIANTS / "fa_gqa_fwd_sm100a_release_after_commit__drop-mbarrier-wait_L88.tir").read_text()
    # two arrives the search generated before it knew a tcgen05.commit arrives on these barriers
    # (test_a_tcgen05_commit_barrier_is_arrived_on): built here as it built them
    from asyncguard.repair.edits import Edit
    by_text = {}
    for line, bar in ((120, "mbar_s_1[0]"), (167, "mbar_d_1[0]")):
        e = Edit(line, "insert-after", f"T.ptx_arrive_barrier({bar})", " " * 32, "release the phase")
        by_text[(e.describe(),)] = (e,)
    want = {
        "insert `T.ptx_arrive_barrier(mbar_s_1[0])` after line 120":
            ([("AG412", 89, 25), ("AG103", 91, 29), ("AG402", 91, 29), ("AG406", 121, 33),
              ("AG412", 121, 33), ("AG409", 124, 21), ("AG412", 172, 21)], "mbar_s[0]"),
        "insert `T.ptx_arrive_barrier(mbar_d_1[0])` after line 167":
            ([("AG412", 89, 25), ("AG103", 91, 29), ("AG402", 91, 29), ("AG406", 168, 33),
              ("AG412", 168, 33), ("AG409", 171, 21), ("AG412", 172, 21)], "mbar_d[0]"),
    }
    for what, (keys, barrier) in want.items():
        new, _ = apply_edits(text, list(by_text[(what,)]))
        found = check_text(new, "k.tir").findings
        assert sorted((f.rule.code, f.line, f.col) for f in found) == sorted(keys), what
        overflow = next(f for f in found if f.rule.code == "AG406")
        assert {k: overflow.witness[k] for k in ("barrier", "count", "phase", "spill",
                                                 "arrivals_in_statement")} == \
            {"barrier": barrier, "count": 1, "phase": 0, "spill": 31, "arrivals_in_statement": 32}
        stale = next(f for f in found if f.rule.code == "AG409")
        assert {k: stale.witness[k] for k in ("phase_observed", "phase_possible",
                                              "phases_known_complete")} == \
            {"phase_observed": 256, "phase_possible": 0, "phases_known_complete": 0}


def test_a_tcgen05_commit_barrier_is_arrived_on():
    """`T.tcgen05_mma_arrive(T.tvm_access_ptr(..., mbar_s.data, 0, 1, 3))` arrives on mbar_s_1[0]
    (the shared.barrier buffer declared on mbar_s's data): no candidate inserts a thread's
    arrive on it, and with its only wait dropped, the missing wait waits on it."""
    text = (VARIANTS / "fa_gqa_fwd_sm100a_release_after_commit__drop-mbarrier-wait_L124.tir").read_text()
    oracle = Oracle(text, "k.tir")
    cands = [e.describe() for c in _candidates(oracle, text) for e in c]
    assert not [d for d in cands if "ptx_arrive_barrier(mbar_" in d]
    assert "insert `T.mbarrier_wait_parity(mbar_s_1[0], k)` before line 126" in cands
    gen = Generator(Tree(text, "k.tir", module=oracle.module), lambda n: n)
    assert gen._bars(["T.tcgen05_mma_arrive"]) == ["mbar_s_1[0]", "mbar_d_1[0]"]


def test_the_calls_of_candidate_trees_are_those_of_a_plain_walk():
    """The resource checks remember a simple statement's calls by the statement object, and the
    candidate trees of one search share statement objects (the splice's moved statements too):
    every candidate tree's calls are the ones a plain walk of that tree finds, the same objects
    in the same order."""
    from dataclasses import fields, is_dataclass

    from asyncguard import ir
    from asyncguard.checks.resources import KernelContext

    def plain(node, out):
        if isinstance(node, ir.Call):
            out.append(node)
        if is_dataclass(node) and not isinstance(node, ir.Span):
            for f in fields(node):
                plain(getattr(node, f.name), out)
        elif isinstance(node, tuple):
            for x in node:
                plain(x, out)
        return out

    text = (VARIANTS / "fa_gqa_fwd_sm100a_release_after_commit__drop-mbarrier-wait_L88.tir").read_text()
    oracle = Oracle(text, "k.tir")
    trees = 0
    for c in _candidates(oracle, text)[:40] * 2:       # twice: the second pass is remembered
        new, lmap = apply_edits(text, list(c))
        module = oracle.splicer.module_for(list(c), new, lmap)
        if module is None:
            continue
        func = module.functions[0]
        got = KernelContext(None, func)._all_calls
        want = plain(func.body, [])
        assert len(got) == len(want) and all(a is b for a, b in zip(got, want)), c
        trees += 1
    assert trees >= 60


def test_the_barriers_tma_loads_complete_on_in_both_forms():
    """The tensor form names its mbarrier second, the 1-D bulk form (`T.tma_load(smem ptr, gmem
    ptr, mbar, bytes, ...)`) third: the barriers a repair may wait on are the four of the
    Mamba chunk-state kernel's loads, never the bulk loads' shared pointers."""
    text = (ROOT / "corpus" / "field" /
            "linear_attention__example_mamba_chunk_state__chunk_state_fwd__sm_90a.tir").read_text()
    gen = Generator(Tree(text, "k.tir"), lambda n: n)
    assert gen._bars(["T.tma_load"]) == ["mbarrier_1[k]", "mbarrier_1[k + 4]", "mbarrier_1[k + 8]",
                                         "mbarrier_1[k + 12]"]
