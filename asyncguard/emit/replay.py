"""Witness replay: realize a static finding's schedule on the GPU.

A finding's witness names the threads and the statement instances of the bad schedule. The
replay skeleton is the kernel's skeleton with one change: before the statement the witness says
comes first, the warp of the thread that executes it waits (`__nanosleep` in a loop, at the
witness's loop iteration), so the other side goes first, which the synchronization allowed.
For an mbarrier phase problem (stale parity, aliasing, run-ahead, deadlock) the waiters named in
the witness are held back at the finding's statement on every instance, so the others lap them.

Why a difference proves the finding: the skeleton's values depend only on the order of its
shared-memory operations, so a race-free kernel reads the same values under every schedule. If
the delayed run's trace differs from the reference, or a bounded wait times out, or the launch
faults, the kernel's outcome depends on the schedule: the race, stale read or lapping hang is
real on the silicon. Per finding the gate reports `plain run` (the undelayed run already failed),
`replay` (only the delayed run shows it) or `not confirmed` (with why).
"""
from __future__ import annotations

import re


RACE_DELAY_US = 200          # hold the first side back this long (once, at the witness's iteration)
PHASE_DELAY_US = 50          # hold a waiter back this long at every instance of its wait
MAX_REPLAYS = 4              # per kernel: distinct witness schedules replayed


def witness_delays(finding: dict) -> tuple[list, str | None]:
    """(delays for the emitter, None) or ([], why this witness cannot be replayed)."""
    w = finding.get("witness") or {}
    delay = w.get("delay")   # lapped waiters (AG410/AG413): the threads to hold back, and where
    if isinstance(delay, dict) and isinstance(delay.get("before_line"), int) and delay.get("warps"):
        threads = set(delay.get("threads") or [])
        # hold back the warps wholly made of lapped threads (a warp that also holds the thread
        # that drives the next phase, e.g. the elected producer lane, would stall that too)
        whole = [wp for wp in delay["warps"] if all(t in threads for t in range(wp * 32, wp * 32 + 32))]
        return [{"line": delay["before_line"], "warp": wp, "loops": {}, "us": PHASE_DELAY_US}
                for wp in (whole or delay["warps"][:1])], None
    first, second = w.get("first"), w.get("second")
    if isinstance(first, dict) and isinstance(second, dict):
        t1, t2 = first.get("thread"), second.get("thread")
        if not isinstance(t1, int) or not isinstance(first.get("line"), int):
            return [], "the witness names no thread and line for its first access"
        if isinstance(t2, int) and t1 // 32 == t2 // 32:
            return [], f"both sides are in warp {t1 // 32}: a warp delay cannot reorder them"
        loops = {k: v for k, v in (first.get("loops") or {}).items() if isinstance(v, int)}
        return [{"line": first["line"], "warp": t1 // 32, "loops": loops, "us": RACE_DELAY_US}], None
    threads = w.get("threads")
    if isinstance(threads, str) and isinstance(finding.get("line"), int):
        m = re.match(r"\s*(\d+)", threads)
        if m:
            return [{"line": finding["line"], "warp": int(m.group(1)) // 32, "loops": {},
                     "us": PHASE_DELAY_US}], None
    return [], "no thread schedule in the witness (nothing to delay)"


def prepare_replays(c, func, program, size: dict, kname: str, numbers: dict | None = None,
                    symbol_trips=frozenset()) -> None:
    """In the preparation worker: one delayed skeleton per distinct witness schedule of the
    kernel's findings (c.replays); `numbers`: the launch's loaded numbers, `symbol_trips`: the
    folded trip counts its loops run as the symbol's value (emit/prepare.py fold_numbers)."""
    from .cuda import EmitError, emit
    c.replays, seen = [], {}
    for i, f in enumerate(c.findings):
        delays, why = witness_delays(f)
        entry = {"finding": i, "rule": f.get("rule"), "line": f.get("line"), "delays": delays, "why": why}
        key = repr(delays)
        if delays and key in seen:
            entry["same_as"] = seen[key]
        elif delays and len(seen) < MAX_REPLAYS:
            seen[key] = i
            try:
                e = emit(func, program, f"{kname}_r{i}", sizes=size, delays=delays, numbers=numbers,
                         symbol_trips=symbol_trips)
            except EmitError as err:
                entry["why"], entry["delays"] = f"replay skeleton not emitted: {err}", []
            else:
                if "replay" not in e.features:
                    entry["why"] = f"no operation at line {delays[0]['line']} in the skeleton to delay"
                else:
                    entry["kernel"], entry["source"] = e.kernel, e.source
        elif delays:
            entry["why"] = f"more than {MAX_REPLAYS} distinct witness schedules: not replayed"
        c.replays.append(entry)


def replay_jobs(cases, work, arch) -> list:
    """[(case, entry), compile job] for every replay skeleton of `cases`."""
    out = []
    for c in cases:
        for entry in getattr(c, "replays", None) or []:
            if entry.get("source"):
                out.append(((c, entry), (entry["source"], entry["kernel"], arch,
                                         str(work / f"{entry['kernel']}.cubin"))))
    return out


def run_replays(extra: list, compiled: list, work, gpus, timeout: float, compare) -> None:
    """Launch the compiled replay skeletons; `compare(case, run)` is the gate's trace comparison
    (passed in: preparation imports this module, so it cannot import preparation back)."""
    from .launcher import run_isolated
    plans, owner = [], {}
    for ((c, entry), _), (cubin, _, err) in zip(extra, compiled):
        if err is not None:
            entry["why"] = f"replay skeleton did not compile: {err[:300]}"
            continue
        pid = f"{c.id}#replay{entry['finding']}"
        plans.append(dict(c.plan, id=pid, kernel=entry["kernel"], cubin=cubin))
        owner[pid] = (c, entry)
    for pid, run in run_isolated(plans, work, gpus, timeout).items():
        c, entry = owner[pid]
        if "error" in run:
            entry["run"] = {"fault": run["error"]}
            continue
        tr = compare(c, run)
        entry["run"] = {"mismatches": tr["mismatches"], "count_mismatches": tr["count_mismatches"],
                        "sink_mismatches": tr["sink_mismatches"], "timeouts": run["timeouts"],
                        "first": tr["first"][:2]}


def _shows(run: dict) -> str | None:
    if not run:
        return None
    if run.get("fault"):
        return f"launch fault: {run['fault']}"
    parts = []
    if run.get("mismatches") or run.get("count_mismatches"):
        parts.append(f"{run['mismatches']} read(s) differ, {run['count_mismatches']} thread(s) read a different count")
    if run.get("sink_mismatches"):
        parts.append(f"TMA-store sink: {run['sink_mismatches']} byte(s) differ")
    if run.get("timeouts"):
        parts.append(f"{run['timeouts']} mbarrier wait(s) timed out")
    return "; ".join(parts) or None


def judge_replays(c) -> None:
    """Per static finding: confirmed by a plain run, by the replay, or not confirmed (why)."""
    if not c.findings or c.result.get("verdict") == "skip":
        return
    entries = getattr(c, "replays", None) or []
    if not entries and c.same_as is not None and \
            [(f.get("rule"), f.get("line")) for f in c.same_as.findings] == [(f.get("rule"), f.get("line")) for f in c.findings]:
        entries = c.same_as.replays or []       # the same skeleton and the same findings: its replays
    by_finding = {e["finding"]: e for e in entries}
    plain = c.result.get("verdict") == "fail"
    out = []
    for i, f in enumerate(c.findings):
        if f.get("severity") != "error" or str(f.get("rule", "")).startswith(("AG0", "AG5", "AG6")):
            continue
        e = by_finding.get(i, {})
        src = by_finding.get(e.get("same_as"), e) if "same_as" in e else e
        row = {"rule": f.get("rule"), "line": f.get("line")}
        shown = _shows(src.get("run"))
        if plain:
            row["confirmed"], row["how"] = "plain run", "; ".join(c.result.get("why") or [])[:200]
        elif shown:
            row["confirmed"], row["how"] = "replay", f"warp {src['delays'][0]['warp']} held at line " \
                                                     f"{src['delays'][0]['line']}: {shown}"
        else:
            row["confirmed"] = "not confirmed"
            row["how"] = src.get("why") or ("the delayed run read what the reference predicts"
                                            if src.get("run") else "no replay run")
        out.append(row)
    c.result["replay"] = out
    shown = [x for x in out if x["confirmed"] == "replay"]
    if shown and not plain:          # the delayed schedule showed the bug on the GPU: the kernel fails
        c.result["verdict"] = "fail"
        c.result.setdefault("why", []).insert(0, f"replay: {len(shown)} finding(s) shown by a delayed schedule "
                                                 f"({shown[0]['rule']} line {shown[0]['line']}: {shown[0]['how']})")
