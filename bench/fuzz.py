"""Fuzz asyncguard: generated TIR kernels and mutated corpus files, in-process and via the CLI.

    python bench/fuzz.py                     # 10,000+ cases over the CPUs, prints the figures
    python bench/fuzz.py --cases 2000 --workers 2 --cli-every 20

Two sources of cases:

- `kernels()`: a hypothesis strategy that writes valid-ish kernels from the grammar: a launch
  (block and thread extents), shared buffers (`shared.dyn` and `shared`), nested loops
  (`T.serial`, `T.unroll`, `range`), ifs on thread / loop values, cp.async / commit / wait_group,
  barriers, loads and stores at random affine addresses (in or out of bounds), lets, and now
  and then a construct the models do not know.
- `corpus_mutants()`: byte- and line-level mutations of every corpus file: deleted, duplicated
  and swapped lines, truncation, random bytes (incl. NUL, invalid UTF-8), huge numbers,
  deep nesting (blocks and parentheses), CRLF / tabs / stray indentation.

The oracle (`run_case`): `check_text` returns a report or raises `InputError` whose text starts
with `path:line:col: error:` (line, col >= 1); anything else is a failure (a traceback). Every
finding has a line and column >= 1 and the renderers (text, JSON, SARIF) accept the report.
A kernel with an AG003 internal-error finding is not a failure of the harness (the engine
caught the exception and made the verdict `unknown`) but is counted and kept as a reproducer.
For a subset the CLI is run as a subprocess: exit code 0, 1 or 2, no traceback, every
`error:` line on stderr names path:line:col.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, seed as hseed, settings, strategies as st  # noqa: E402

from asyncguard.analyze import Limits, check_text  # noqa: E402
from asyncguard.parse import InputError  # noqa: E402

CORPUS_DIRS = ("real", "handwritten", "variants", "redundant")
ERROR_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): error: \S")
# a fuzz case must stay cheap (robustness, not depth): AG002 is a fine answer
LIMITS = Limits(max_steps=20_000, prefix_steps=2_000, max_seconds=3)


# ------------------------------------------------------------------ generated kernels
HEAD = '''# from tvm.script import tirx as T
@T.prim_func
def k(A: T.handle("float16", "global"), C: T.handle("float16", "global")):
    T.func_attr({{"thread_extent": {{"blockIdx.x": {bx}, "threadIdx.x": {tx}, "threadIdx.y": 1, "threadIdx.z": 1}}}})
    C_1 = T.decl_buffer((65536,), "float16", data=C)
'''
SMALL = st.integers(min_value=0, max_value=8)


@st.composite
def _affine(draw, names, size):
    """a*x + b*y + c, maybe reduced modulo the buffer size (else it may run out of bounds)."""
    terms = []
    for n in names:
        if draw(st.booleans()):
            terms.append(f"{draw(st.integers(1, 64))} * {n}" if draw(st.booleans()) else n)
    terms.append(str(draw(st.integers(0, size + 16))))
    expr = " + ".join(terms)
    if draw(st.integers(0, 9)) < 8:
        expr = f"({expr}) % {size}"
    return expr


@st.composite
def _cond(draw, names):
    n = draw(st.sampled_from(names))
    kind = draw(st.integers(0, 4))
    c = draw(st.integers(0, 140))
    if kind == 0:
        return f"{n} < {c}"
    if kind == 1:
        return f"{n} % {draw(st.sampled_from([2, 4, 32]))} == 0"
    if kind == 2:
        return f"{n} == {c}"
    if kind == 3:
        return f"T.tl_shuffle_elect({draw(st.sampled_from([0, 32, 64, 128]))})"
    return f"{n} >= {c} and {n} < {c + 8}"


@st.composite
def _stmts(draw, names, size, depth):
    out = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(
            ["store", "load", "copy", "commit", "wait", "sync", "sync", "for", "if", "let",
             "unknown", "named"] if depth < 3 else ["store", "load", "copy", "commit", "wait", "sync"]))
        if kind == "store":
            out.append(f"S[{draw(_affine(names, size))}] = T.float16(0.0)")
        elif kind == "load":
            out.append(f"C_1[tx] = S[{draw(_affine(names, size))}]")
        elif kind == "copy":
            n = draw(st.sampled_from([2, 4, 8]))
            pred = ", tx < 32" if draw(st.integers(0, 5)) == 0 else ""
            out.append(f'T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float16"), S.data, '
                       f'{draw(_affine(names, size))}, {n}, 2), T.tvm_access_ptr('
                       f'T.type_annotation("float16"), A, tx * 8, {n}, 1), {n * 2}{pred})')
        elif kind == "commit":
            out.append("T.ptx_commit_group()")
        elif kind == "wait":
            out.append(f"T.ptx_wait_group({draw(st.integers(0, 3))})")
        elif kind == "sync":
            out.append('T.tvm_storage_sync("shared")')
        elif kind == "named":
            out.append(f'T.tvm_storage_sync("shared", {draw(st.integers(1, 3))}, '
                       f'{draw(st.sampled_from([32, 64, 128]))})')
        elif kind == "let":
            v = f"v{depth}_{len(out)}"
            out.append(f"{v}: T.int32 = {draw(_affine(names, size))}")
            names = names + [v]
        elif kind == "unknown":
            out.append(draw(st.sampled_from([
                "T.some_future_op(S.data)", "T.call_extern(\"handle\", \"foo\", S.data)",
                "T.evaluate(0)", "T.cluster_sync()", "if S[0] > T.float16(0.0):\n    T.evaluate(0)"])))
        elif kind == "for":
            v = f"k{depth}"
            loop = draw(st.sampled_from(["T.serial", "T.unroll", "range"]))
            n = draw(st.one_of(st.integers(0, 6), st.sampled_from([1000, 10**9, -1])))
            inner = draw(_stmts(names + [v], size, depth + 1))
            out.append(f"for {v} in {loop}({n}):\n" + _indent(inner))
        elif kind == "if":
            then = draw(_stmts(names, size, depth + 1))
            text = f"if {draw(_cond(names))}:\n" + _indent(then)
            if draw(st.booleans()):
                text += "\nelse:\n" + _indent(draw(_stmts(names, size, depth + 1)))
            out.append(text)
    return "\n".join(out)


def _indent(block: str, by: str = "    ") -> str:
    return "\n".join(by + ln for ln in block.splitlines())


@st.composite
def kernels(draw) -> str:
    """A kernel from the grammar: launch, shared buffers, a random statement tree."""
    bx = draw(st.sampled_from([1, 1, 2, 3, 16]))
    tx = draw(st.sampled_from([1, 32, 33, 64, 128, 256]))
    size = draw(st.sampled_from([64, 512, 4096]))
    head = HEAD.format(bx=bx, tx=tx)
    names = ["tx"]
    if bx > 1 or draw(st.booleans()):
        head += f'    bx = T.launch_thread("blockIdx.x", {bx})\n'
        names.append("bx")
    head += f'    tx = T.launch_thread("threadIdx.x", {tx})\n'
    head += f'    S = T.alloc_buffer(({size},), "float16", scope="shared.dyn")\n'
    if draw(st.booleans()):
        head += '    S2 = T.alloc_buffer((128,), "float32", scope="shared")\n'
    body = draw(_stmts(names, size, 0))
    return head + _indent(body) + "\n"


# ------------------------------------------------------------------ corpus mutations
def corpus_files() -> list[Path]:
    return [p for d in CORPUS_DIRS for p in sorted((ROOT / "corpus" / d).glob("*.tir"))]


_TEXTS: dict = {}


def corpus_text(path: Path) -> str:
    """Read once per process: corpus/build.py may rewrite the directories during a long run."""
    if path not in _TEXTS:
        try:
            _TEXTS[path] = path.read_text()
        except OSError:
            _TEXTS[path] = _TEXTS.get(ROOT / "corpus/handwritten/ring2.tir") or \
                (ROOT / "corpus/handwritten/ring2.tir").read_text()
    return _TEXTS[path]


def _lines(text):
    return text.splitlines(keepends=True)


def _m_delete(t, r):
    ls = _lines(t)
    if ls:
        i = r.randrange(len(ls))
        del ls[i: i + r.choice([1, 1, 1, 2, 5])]
    return "".join(ls)


def _m_duplicate(t, r):
    ls = _lines(t)
    if ls:
        i = r.randrange(len(ls))
        ls[i:i] = ls[i: i + r.choice([1, 1, 3])] * r.choice([1, 2, 10])
    return "".join(ls)


def _m_swap(t, r):
    ls = _lines(t)
    if len(ls) > 1:
        i, j = r.randrange(len(ls)), r.randrange(len(ls))
        ls[i], ls[j] = ls[j], ls[i]
    return "".join(ls)


def _m_truncate(t, r):
    return t[: r.randrange(len(t) + 1)]


def _m_bytes(t, r):
    b = bytearray(t.encode())
    for _ in range(r.choice([1, 1, 2, 8])):
        pos = r.randrange(len(b) + 1)
        junk = bytes(r.randrange(256) for _ in range(r.choice([1, 1, 3])))
        if r.random() < 0.5 and pos < len(b):
            b[pos: pos + len(junk)] = junk
        else:
            b[pos:pos] = junk
    return bytes(b)          # may be invalid UTF-8: decoded like the CLI does


def _m_chars(t, r):
    chars = "()[]{}:,.=+-*/%<>!@#$\\'\"\t \n#0123456789_eExX\x00\x0c\r"
    s = list(t)
    for _ in range(r.choice([1, 2, 5])):
        pos = r.randrange(len(s) + 1)
        s.insert(pos, r.choice(chars))
    return "".join(s)


_NUM = re.compile(r"(?<![\w.])\d+(?![\w.])")


def _m_huge(t, r):
    nums = list(_NUM.finditer(t))
    if not nums:
        return t
    m = r.choice(nums)
    big = r.choice(["1000000000", "2147483648", "99999999999999999999999999", "-1", "0",
                    "1" + "0" * 400, "0x7fffffffffffffff", "1e308", "1.5", "-2147483649"])
    return t[: m.start()] + big + t[m.end():]


def _m_nest_blocks(t, r):
    """Wrap one statement in N nested ifs / loops."""
    ls = _lines(t)
    idx = [i for i, ln in enumerate(ls) if ln.startswith("        ") and ln.strip()
           and not ln.rstrip().endswith(":")]
    if not idx:
        return t
    i = r.choice(idx)
    depth = r.choice([10, 50, 100, 300])
    ind = ls[i][: len(ls[i]) - len(ls[i].lstrip())]
    head = r.choice(["if tx >= 0:", "for q{d} in T.serial(1):", "with T.attr(0, \"x\", 1):"])
    wrapped = "".join(ind + " " * (4 * d) + head.format(d=d) + "\n" for d in range(depth))
    ls[i] = wrapped + ind + " " * (4 * depth) + ls[i].lstrip()
    return "".join(ls)


def _m_nest_parens(t, r):
    nums = list(_NUM.finditer(t))
    if not nums:
        return t
    m = r.choice(nums)
    d = r.choice([50, 200, 1000, 5000, 50000])
    op = r.choice(["(", "-", "~", "not "])
    inner = op * d + m.group() + (")" * d if op == "(" else "")
    return t[: m.start()] + inner + t[m.end():]


def _m_whitespace(t, r):
    k = r.randrange(4)
    if k == 0:
        return t.replace("\n", "\r\n")
    if k == 1:
        return t.replace("    ", "\t", r.randrange(1, 40))
    if k == 2:
        ls = _lines(t)
        if ls:
            i = r.randrange(len(ls))
            ls[i] = " " * r.choice([1, 2, 3, 5]) + ls[i]
        return "".join(ls)
    return t.rstrip("\n")


def _m_splice(t, r):
    """Paste a random chunk of another corpus file into this one."""
    other = corpus_text(r.choice(_CORPUS))
    a = r.randrange(len(other))
    chunk = other[a: a + r.randrange(1, 400)]
    pos = r.randrange(len(t) + 1)
    return t[:pos] + chunk + t[pos:]


MUTATORS = {"delete": _m_delete, "duplicate": _m_duplicate, "swap": _m_swap,
            "truncate": _m_truncate, "bytes": _m_bytes, "chars": _m_chars, "huge": _m_huge,
            "nest-blocks": _m_nest_blocks, "nest-parens": _m_nest_parens,
            "whitespace": _m_whitespace, "splice": _m_splice}
_CORPUS = corpus_files()


@st.composite
def corpus_mutants(draw, files=None):
    """(description, bytes-or-text): 1-3 stacked mutations of one corpus file."""
    files = files or _CORPUS
    path = draw(st.sampled_from(files))
    r = random.Random(draw(st.integers(0, 2**32 - 1)))
    text = corpus_text(path)
    kinds = [draw(st.sampled_from(sorted(MUTATORS))) for _ in range(draw(st.integers(1, 3)))]
    data = text
    for k in kinds:
        if isinstance(data, bytes):
            data = data.decode("utf-8", "replace")
        data = MUTATORS[k](data, r)
    return f"{path.relative_to(ROOT)} <{'+'.join(kinds)}>", data


# ------------------------------------------------------------------ the oracle
def decode(data) -> str | InputError:
    """As the CLI reads a file: UTF-8 or an InputError naming the first bad byte."""
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        head = data[: e.start].decode("utf-8", "replace")
        return InputError("not UTF-8 text", head.count("\n") + 1,
                          e.start - (head.rfind("\n") + 1) + 1, "fuzz.tir")


def run_case(data, path: str = "fuzz.tir", limits: Limits = LIMITS) -> dict:
    """One in-process check. Returns {outcome, verdict, rules, seconds, failure, internal}."""
    from asyncguard.report import render_json, render_text
    from asyncguard.report.sarif import render_sarif
    from asyncguard.report.witness_svg import picture
    out = {"outcome": None, "verdict": None, "rules": [], "failure": None, "internal": None}
    t0 = time.perf_counter()
    text = decode(data)
    try:
        if isinstance(text, InputError):
            raise text
        rep = check_text(text, path, limits)
        out["outcome"], out["verdict"] = "report", rep.verdict
        out["rules"] = sorted({f.rule.code for f in rep.findings})
        for f in rep.findings:
            if not (isinstance(f.line, int) and isinstance(f.col, int) and f.line >= 1 and f.col >= 1):
                out["failure"] = f"finding {f.rule.code} at bad position {f.line}:{f.col}"
            if f.rule.code == "AG003":
                out["internal"] = f.message
        if rep.verdict == "clean" and any(f.rule.kind == "unsupported" for f in rep.findings):
            out["failure"] = "clean verdict with an unsupported finding"
        sources = {path: text.splitlines()}
        render_text([rep], sources, False)
        json.loads(render_json([rep], []))
        json.loads(render_sarif([rep], [], sources))
        for f in rep.findings:      # --witness-svg, from the witness alone (the replay is unbounded)
            picture(f, None)
    except InputError as e:
        out["outcome"] = "input-error"
        s = str(e)
        m = ERROR_LINE.match(s)
        if not m or m.group("path") != path or int(m.group("line")) < 1 or int(m.group("col")) < 1:
            out["failure"] = f"input error without path:line:col: {s!r}"
    except RecursionError:
        out["failure"] = "RecursionError\n" + traceback.format_exc(limit=-8)
    except Exception:  # noqa: BLE001 -- that is what we are looking for
        out["failure"] = traceback.format_exc(limit=-8)
    out["seconds"] = time.perf_counter() - t0
    return out


def run_cli(data, workdir: str, fmt: str = "text", timeout: float = 120) -> dict:
    """The CLI as a subprocess on the case written to a file."""
    path = os.path.join(workdir, "case.tir")
    with open(path, "wb") as fh:
        fh.write(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
    cmd = [sys.executable, "-m", "asyncguard", "check", "--no-progress", "--timeout", "3", "--max-steps", "20000",
           "--format", fmt, path]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=workdir,
                           env=dict(os.environ, PYTHONPATH=str(ROOT)), errors="replace")
    except subprocess.TimeoutExpired:
        return {"failure": f"CLI timed out after {timeout} s", "rc": None,
                "seconds": time.perf_counter() - t0}
    fail = None
    if p.returncode not in (0, 1, 2):
        fail = f"exit code {p.returncode}"
    elif "Traceback" in p.stderr or "Traceback" in p.stdout:
        fail = "traceback:\n" + p.stderr[-3000:]
    else:
        for ln in p.stderr.splitlines():
            if "error" in ln.lower() and not ERROR_LINE.match(ln):
                fail = f"stderr line without path:line:col: {ln!r}"
                break
        if p.returncode == 2 and not any(ERROR_LINE.match(ln) for ln in p.stderr.splitlines()) \
                and fmt == "text":
            fail = "exit 2 without a path:line:col error"
    return {"failure": fail, "rc": p.returncode, "seconds": time.perf_counter() - t0}


# ------------------------------------------------------------------ driving hypothesis
def fuzz(source: str, n: int, seed_value: int, cli_every: int = 0, on_case=None) -> list[dict]:
    """Run `n` cases from `source` ("generated" | "corpus") under hypothesis with a fixed seed.
    Failures are collected, not raised, so one bad case does not stop the run."""
    rows: list[dict] = []
    strategy = kernels() if source == "generated" else corpus_mutants()
    workdir = tempfile.mkdtemp(prefix="agfuzz-")

    @hseed(seed_value)
    @settings(max_examples=n, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck), phases=["generate"])
    @given(strategy)
    def one(case):
        desc, data = ("generated", case) if source == "generated" else case
        row = run_case(data)
        row["source"], row["desc"] = source, desc
        if cli_every and len(rows) % cli_every == 0:
            fmt = ("text", "json", "sarif")[len(rows) // cli_every % 3]
            c = run_cli(data, workdir, fmt)
            row["cli"] = {"rc": c["rc"], "format": fmt, "seconds": c["seconds"]}
            if c["failure"] and not row["failure"]:
                row["failure"] = "CLI: " + c["failure"]
        if row["failure"] or row["internal"]:
            row["data"] = data if isinstance(data, str) else data.decode("utf-8", "backslashreplace")
        rows.append(row)
        if on_case:
            on_case(row)

    one()
    return rows


def _worker(args):
    source, n, seed_value, cli_every = args
    try:
        return fuzz(source, n, seed_value, cli_every)
    except Exception:  # noqa: BLE001 -- a harness error must not lose the other chunks
        return [{"source": source, "desc": f"harness error (seed {seed_value})", "outcome": None,
                 "verdict": None, "rules": [], "internal": None, "seconds": 0,
                 "failure": "harness: " + traceback.format_exc(limit=-4)}]


def summarize(rows: list[dict], seconds: float) -> dict:
    from collections import Counter
    cli = [r["cli"] for r in rows if "cli" in r]
    return {
        "cases": len(rows),
        "by_source": dict(Counter(r["source"] for r in rows)),
        "outcomes": dict(Counter(r["outcome"] or "failure" for r in rows)),
        "verdicts": dict(Counter(r["verdict"] for r in rows if r["verdict"])),
        "failures": sum(1 for r in rows if r["failure"]),
        "internal_errors_AG003": sum(1 for r in rows if r["internal"]),
        "engine_limit_AG002": sum(1 for r in rows if "AG002" in r["rules"]),
        "unsupported_AG001": sum(1 for r in rows if "AG001" in r["rules"]),
        "cli_runs": len(cli),
        "cli_exit_codes": dict(Counter(c["rc"] for c in cli)),
        "wall_seconds": round(seconds, 1),
        "case_seconds_median": round(sorted(r["seconds"] for r in rows)[len(rows) // 2], 4) if rows else 0,
        "case_seconds_max": round(max((r["seconds"] for r in rows), default=0), 2),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_400, help="total cases (half generated, half mutated)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--cli-every", type=int, default=25, help="also run the CLI on every Nth case")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", metavar="FILE", help="write every failure / AG003 case here")
    args = ap.parse_args(argv)
    chunks = max(args.workers * 8, 2)
    per = -(-args.cases // chunks)
    jobs = [("generated" if i % 2 == 0 else "corpus", per, args.seed * 1000 + i, args.cli_every)
            for i in range(chunks)]
    t0 = time.perf_counter()
    rows: list[dict] = []
    if args.workers <= 1:
        for j in jobs:
            rows.extend(_worker(j))
    else:
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(args.workers) as pool:
            for part in pool.map(_worker, jobs):
                rows.extend(part)
    summary = summarize(rows, time.perf_counter() - t0)
    print(json.dumps(summary, indent=2))
    bad = [r for r in rows if r["failure"] or r["internal"]]
    for r in bad[:20]:
        print(f"\n--- {r['source']} {r['desc']}: {'FAILURE' if r['failure'] else 'AG003'}")
        print((r["failure"] or r["internal"])[-2000:])
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "cases": bad}, indent=1))
    return 1 if summary["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
