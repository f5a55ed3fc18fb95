"""Render `asyncguard sanitize --json` results as the markdown tables in docs/sanitizer-gate.md.

    python bench/sanitizer_table.py [--summary] RESULTS.json...     one table (or totals + non-pass rows)
    python bench/sanitizer_table.py --doc DIR                        every table of the doc's results
                                                                     section from DIR/gate_*.json, *.time
    python bench/sanitizer_table.py --doc DIR --into docs/sanitizer-gate.md   ... written between
                                                                     the doc's gate-results markers
    python bench/sanitizer_table.py --same DIR1|JSON1 DIR2|JSON2     the same rows? (1 GPU vs 2 GPUs)

A later file's row replaces an earlier file's row of the same kernel (a re-run). --doc groups the
rows by part (corpus, field, every variantsKofN, repaired), prints the run times (summed for the
parts on all GPUs and, apart, for the _gpus1 parts on one), each part on one GPU vs all, the full
tables of the corpus and the field corpus, totals and non-pass rows of the variants, every
disagreement with its explanation, and the witness-replay outcome per finding.
"""
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from asyncguard.emit.gate import agreement  # noqa: E402   (one rule for the run and the table)

HEAD = ("| kernel | static (asyncguard check) | racecheck | synccheck | trace check | gate | agree? |\n"
        "|---|---|---|---|---|---|---|")

# Why a static finding is not seen by the plain GPU run (docs/sanitizer-gate.md, "Disagreements")
EXPLAINED = {
    "AG405": "proxy fence: neither racecheck nor the trace observes the async proxy",
    "AG404": "fence.mbarrier_init: the checker is stricter than the ISA within one CTA",
    "AG402": ("an asynchronous reader's bytes overwritten: the skeleton reads wgmma operands at issue; "
              "a TMA store's read is invisible to racecheck and timing-dependent"),
    "AG411": "an asynchronous reader pending at exit: the skeleton's wgmma reads its operands at issue, so none is pending",
    "AG417": ("a read of bytes no write reaches returns the initial fill pattern in every schedule, "
              "on the GPU as in the reference: the trace comparison cannot tell it from a correct "
              "read (no check of initial-pattern reads yet)"),
}

# Kernels whose findings need an input pattern the gate does not launch: it fixes every
# data-dependent truth value to 1 (docs/sanitizer-gate.md, "What is emitted")
NOT_LAUNCHED_PATTERN = {
    "blocksparse_attn_sm90a": "AG401 for an empty mask row; the gate launches every mask value 1",
    "blocksparse_ws_ring_counts_skipped": "AG408/AG409 for skipped blocks; the gate launches every mask value 1",
}


def agree(r) -> str:
    return agreement(r["static"], r["static_rules"], r["verdict"], r["status"])


def short(kernel: str) -> str:
    k = re.sub(r"^.*?(corpus|field-out|tests/gate_kernels)/", r"\1/", kernel).replace("corpus/", "")
    return k.replace("::main_kernel", "")


def cell(t):
    if not t:
        return "-"
    if t.get("not_run"):
        return "not run (hang shown)"
    if t.get("hazards") is None:
        return "no report"
    s = str(t["hazards"])
    if t.get("errors") is not None and t["hazards"]:
        s += f" ({t['errors']} err, {t['warnings']} warn)"
    return s if t.get("finished", True) else s + " (unfinished)"


def trace(r):
    t = r.get("trace")
    if not t:
        return "-"
    if t.get("shape_error"):
        return "wrong shape: " + t["shape_error"]
    if t.get("sink_mismatches"):
        return f"{t['mismatches']}/{t['reads']} differ, TMA-store sink: {t['sink_mismatches']} B differ"
    if not (t["mismatches"] or t["count_mismatches"]):
        return f"ok ({t['reads']} reads)" + (f", {r['timeouts']} timeouts" if r.get("timeouts") else "")
    s = f"{t['mismatches']}/{t['reads']} differ"
    if t["count_mismatches"]:
        s += f", {t['count_mismatches']} count"
    if r.get("timeouts"):
        s += f", {r['timeouts']} timeouts"
    return s


def row_line(r) -> str:
    k = short(r["kernel"])
    st = r["static"] + (f" {','.join(x for x in r['static_rules'])}" if r["static_rules"] else "")
    if r["status"] != "ran":
        why = (r.get("not_emitted") or r.get("error") or r["status"] or "")[:90].replace("|", "/")
        return f"| {k} | {st} | - | - | - | {r['verdict']}: {why} | {agree(r)} |"
    gate = r["verdict"] + (f" (same skeleton as {short(r['same_as'])})" if r.get("same_as") else "")
    if r.get("racecheck_discounted"):
        gate += " (racecheck: bar.arrive false positive, not counted)"
    if r.get("replay") and any(x["confirmed"] == "replay" for x in r["replay"]):
        gate += " (by replay)"
    return f"| {k} | {st} | {cell(r.get('racecheck'))} | {cell(r.get('synccheck'))} | {trace(r)} | {gate} | {agree(r)} |"


def totals(rows) -> str:
    ran = [r for r in rows if r["status"] == "ran"]
    n = Counter(r["verdict"] for r in rows)
    a = Counter(agree(r) for r in rows)
    return (f"kernels: {len(rows)}; ran: {len(ran)} ({sum(not r.get('same_as') for r in ran)} distinct skeletons); "
            f"pass: {n['pass']}; fail: {n['fail']}; skip: {n['skip']}; "
            f"static clean: {sum(r['static'] in ('clean', 'warnings') for r in rows)}; "
            f"agree: {a['yes']} yes, {a['no']} no, {a['n/a']} n/a")


def explain(r) -> str:
    """The documented reason a disagreement is not a checker bug, or UNEXPLAINED."""
    if r["verdict"] == "pass" and r["static"] == "buggy":
        stem = Path(r["kernel"].split("::")[0]).stem
        if stem in NOT_LAUNCHED_PATTERN:
            return NOT_LAUNCHED_PATTERN[stem]
        rules = [x for x in r["static_rules"] if x.startswith(("AG1", "AG2", "AG3", "AG4"))]
        why = sorted({EXPLAINED[x] for x in rules if x in EXPLAINED})
        if why and all(x in EXPLAINED for x in rules):
            return "; ".join(why)
        if rules == ["AG201"]:
            return "AG201 before a TMA store: the async-proxy read is invisible to racecheck; timing-dependent"
        if rules == ["AG102"]:
            return ("AG102: the copy had landed before the read in this run (timing-dependent); racecheck "
                    "saw no hazard (a TMA-store reader is invisible to it)")
        conf = Counter(x["confirmed"] for x in r.get("replay") or [])
        return f"UNEXPLAINED (replay: {dict(conf) or 'not run'})"
    return "UNEXPLAINED (the GPU run fails a kernel the checker passes: check the row)"


def summary(rows, out=print) -> None:
    """Totals, then the rows that did not pass (for runs too large for one row per kernel)."""
    out(totals(rows))
    bad = [r for r in rows if r["verdict"] != "pass"]
    if bad:
        out("")
        out(HEAD)
        for r in bad:
            out(row_line(r))


def replay_table(rows, out=print) -> None:
    """Per static finding of a kernel that ran: confirmed by a plain run, by replay, or not."""
    by_rule: dict = {}
    for r in rows:
        for x in r.get("replay") or []:
            by_rule.setdefault(x["rule"], Counter())[x["confirmed"]] += 1
    if not by_rule:
        out("(no replay results)")
        return
    out("| rule | findings | confirmed by a plain run | confirmed by replay | not confirmed |")
    out("|---|---|---|---|---|")
    for rule in sorted(by_rule):
        c = by_rule[rule]
        out(f"| {rule} | {sum(c.values())} | {c['plain run']} | {c['replay']} | {c['not confirmed']} |")
    out("")
    out("| kernel | finding | outcome |")
    out("|---|---|---|")
    for r in rows:
        for x in r.get("replay") or []:
            if x["confirmed"] != "plain run":
                out(f"| {short(r['kernel'])} | {x['rule']} line {x['line']} | {x['confirmed']}: "
                    f"{str(x['how'])[:140].replace('|', '/')} |")


def load(files) -> list:
    by_kernel = {}      # a later file's row replaces an earlier one of the same kernel (a re-run)
    for f in files:
        for r in json.load(open(f)):
            by_kernel[r["kernel"]] = r
    return list(by_kernel.values())


def doc(d: Path, out=print) -> None:
    parts = {p: sorted(f for f in d.glob(f"gate_{p}*.json") if not f.stem.endswith("_gpus1"))
             for p in ("corpus", "field", "variants", "repaired", "ag417")}
    out("### Run times\n")
    out("| part | kernels | wall time | |")
    out("|---|---|---|---|")
    total = {"": 0, "_gpus1": 0}     # the parts on all GPUs and the same parts on one: two sums
    for t in sorted(d.glob("gate_*.time")):
        line = t.read_text().split()
        js = t.with_suffix(".json")
        n = len(json.load(open(js))) if js.exists() else 0
        secs = int(line[1])
        total["_gpus1" if t.stem.endswith("_gpus1") else ""] += secs
        out(f"| {line[0]} | {n} | {secs} s | {' '.join(line[3:])} |")
    for suffix, label in (("", "all parts on all GPUs"), ("_gpus1", "all parts on one GPU")):
        if total[suffix]:
            out(f"| {label} | | {total[suffix]} s ({total[suffix] / 60:.1f} min) | |")
    out("")
    for line in corpus_and_variants(d):
        out(line)
    for one in sorted(d.glob("gate_*_gpus1.json")):   # issue 17: each part on one GPU and on all
        two = one.with_name(one.name.replace("_gpus1", ""))
        if not two.exists():
            continue
        lines: list = []
        same_rows(load([two]), load([one]), lines.append, only_verdicts=True)
        out(f"One GPU vs all: {two.stem[5:]}'s rows on one GPU ({one.stem}) and on all "
            f"({two.stem}): {lines[0]}" + "".join("; " + x.strip() for x in lines[1:]) + "\n")
    for part, files in parts.items():
        if not files:
            continue
        rows = load(files)
        out(f"### {part}: {totals(rows)}\n")
        if part in ("corpus", "field"):
            out(HEAD)
            for r in rows:
                out(row_line(r))
        else:
            summary(rows, out)
        out("")
        dis = [r for r in rows if agree(r) == "no"]
        if dis:
            out(f"Disagreements ({len(dis)}):\n")
            for r in dis:
                out(f"- `{short(r['kernel'])}` ({r['static']} {','.join(r['static_rules'])}, GPU {r['verdict']}): {explain(r)}")
            out("")
        out(f"Witness replay ({part}):\n")
        replay_table(rows, out)
        out("")


def corpus_and_variants(d: Path) -> list:
    """Issue 15 item 4 / issue 17 item 5: the corpus plus every variant through the gate, on all
    GPUs (gate_corpus + gate_variantsKofN) and on one (the same parts' _gpus1 runs): the summed
    wall time of the parts, each one device command or part of one. A figure is printed only when
    the corpus part and every variants part K = 1..N of one N ran to the end (no cut part)."""
    out = []
    for label, suffix in (("all GPUs", ""), ("one GPU", "_gpus1")):
        corpus = d / f"gate_corpus{suffix}.time"
        parts = {}
        for t in d.glob(f"gate_variants*of*{suffix}.time"):
            m = re.fullmatch(r"gate_variants(\d+)of(\d+)" + suffix, t.stem)
            if m:
                parts.setdefault(int(m.group(2)), {})[int(m.group(1))] = t
        whole = [n for n, ks in parts.items() if set(ks) == set(range(1, n + 1))]
        if not corpus.exists() or not whole:
            continue
        files = [corpus] + [parts[min(whole)][k] for k in sorted(parts[min(whole)])]
        secs, kernels, cut, gpus = 0, 0, [], set()
        for t in files:
            line = t.read_text().split()
            secs += int(line[1])
            if "(cut" in t.read_text() or line[4] != "0," and line[4] != "1,":
                cut.append(line[0])
            js, log = t.with_suffix(".json"), t.with_suffix(".log")
            kernels += len(json.load(open(js))) if js.exists() else 0
            if log.exists():
                m = re.search(r"\) x (\d+);", log.read_text(errors="replace"))
                if m:
                    gpus.add(m.group(1))
        where = f"{'/'.join(sorted(gpus)) or '?'} GPU(s)"
        verdict = "within 10 minutes" if secs <= 600 and not cut else "NOT within 10 minutes"
        out.append(f"Corpus plus every variant on {label} ({where}): {kernels} kernels in {secs} s "
                   f"({secs / 60:.1f} min, {len(files)} parts: {', '.join(t.stem[5:] for t in files)}): {verdict}"
                   + (f"; parts cut or failed to run: {', '.join(cut)}" if cut else "") + "\n")
    return out


def same(a: Path, b: Path) -> int:
    """Rows of two result directories (e.g. one GPU and two) compared kernel by kernel: verdict,
    reads that differ, timeouts, sanitizer counts and agreement. Prints the differences; 0 when
    there are none. Each may also be one part's JSON file (gate_corpus.json gate_corpus_gpus1.json)."""
    def rows(p: Path) -> list:   # a results directory, or one part's JSON file
        return load([p] if p.is_file() else sorted(p.glob("gate_*.json")))
    return 1 if same_rows(rows(a), rows(b), print) else 0


def same_rows(rows_a: list, rows_b: list, out=print, only_verdicts=False) -> int:
    """The kernels whose verdict, trace, timeouts, sanitizer counts or agreement differ: printed
    (a first line with the counts, then one per kernel, or with `only_verdicts` one per kernel
    whose verdict or agreement differs: a racy kernel's counts differ from run to run); their number."""
    def key(r):
        t = r.get("trace") or {}
        return (r["verdict"], t.get("mismatches"), t.get("count_mismatches"), t.get("sink_mismatches"),
                r.get("timeouts"), (r.get("racecheck") or {}).get("hazards"),
                (r.get("synccheck") or {}).get("hazards"), agree(r))
    ra = {r["kernel"]: r for r in rows_a}
    rb = {r["kernel"]: r for r in rows_b}
    diff = [k for k in sorted(set(ra) | set(rb)) if k not in ra or k not in rb or key(ra[k]) != key(rb[k])]
    verdicts = [k for k in diff if k not in ra or k not in rb or
                (ra[k]["verdict"], agree(ra[k])) != (rb[k]["verdict"], agree(rb[k]))]
    out(f"{len(set(ra) & set(rb))} kernels in both; {len(diff)} differ, "
        f"{len(verdicts)} of them in verdict or agreement")
    for k in (verdicts if only_verdicts else diff)[:50]:
        out(f"  {short(k)}: {key(ra[k]) if k in ra else '-'} vs {key(rb[k]) if k in rb else '-'}")
    return len(diff)


BEGIN, END = "<!-- gate-results:begin -->", "<!-- gate-results:end -->"


def into(d: Path, md: Path) -> None:
    """Replace the text between the gate-results markers of `md` with --doc's output."""
    lines: list = []
    doc(d, lines.append)
    text = md.read_text()
    if BEGIN not in text or END not in text:
        sys.exit(f"{md}: no {BEGIN} ... {END} markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    md.write_text(head + BEGIN + "\n" + "\n".join(lines) + "\n" + END + tail)
    print(f"{md}: results from {d} written ({len(lines)} lines)")


def main(argv) -> None:
    if argv[:1] == ["--doc"] and len(argv) == 2:
        doc(Path(argv[1]))
        return
    if argv[:1] == ["--doc"] and len(argv) == 4 and argv[2] == "--into":
        into(Path(argv[1]), Path(argv[3]))
        return
    if argv[:1] == ["--same"] and len(argv) == 3:
        sys.exit(same(Path(argv[1]), Path(argv[2])))
    brief = "--summary" in argv
    rows = load(a for a in argv if a != "--summary")
    if brief:
        summary(rows)
        return
    print(HEAD)
    for r in rows:
        print(row_line(r))


if __name__ == "__main__":
    main(sys.argv[1:])
