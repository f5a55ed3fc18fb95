"""`asyncguard sanitize FILE...`: run each kernel's synchronization skeleton on a GPU.

Per kernel: static verdict (asyncguard check) -> emit the skeleton (emit/cuda.py) -> numpy
reference (emit/reference.py), all CPU-side in emit/prepare.py -> compile (NVRTC through
cuda-python; nvcc as fallback) -> launch in an isolated launcher process, one per visible GPU
(emit/launcher.py) -> compare every traced read with the reference -> re-run the kernel under
`compute-sanitizer --tool racecheck` and `--tool synccheck` (one process per kernel and tool)
-> with --replay, realize each static finding's witness schedule (emit/replay.py). Progress on
stderr. Exit 0 every kernel passed, 1 a failure, 2 no GPU / no sanitizer.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.sax.saxutils as xs
from pathlib import Path

from .launcher import MARK, Gpu, GpuError, compile_job, run_isolated, visible_gpus  # noqa: F401
from .prepare import Case, compare, gate_sizes, launch_limit, prepare, skeleton_key, stderr_progress  # noqa: F401
from .cuda import COUNTING_CP_ASYNC_ARRIVE, ELECTED_ARRIVE

# ---------------------------------------------------------------- sanitizer
# One sanitizer process per kernel and tool: racecheck's report lines cannot be attributed to a
# launch reliably (the tool front-end prints them asynchronously), and it does not report a hazard
# again at a location it already reported in the same process. The process's own summary line
# is then exactly this kernel's count.
_RACE_SUMMARY = re.compile(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)")
_ERR_SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) errors?")


def parse_sanitizer(tool: str, text: str, kid: str) -> dict:
    finished = f"{MARK} END {kid}" in text and f"{MARK} FAIL {kid}" not in text
    m = _RACE_SUMMARY.search(text) if tool == "racecheck" else None
    if m:
        hazards, errors, warnings = (int(x) for x in m.groups())
    else:
        e = _ERR_SUMMARY.search(text)
        hazards = errors = int(e.group(1)) if e else None
        warnings = 0
    lines = [ln for ln in text.splitlines() if ln.startswith("=========") and ln.strip("= ")
             and "COMPUTE-SANITIZER" not in ln][:12]
    fail = [ln for ln in text.splitlines() if ln.startswith(f"{MARK} FAIL")]
    return {"hazards": hazards, "errors": errors, "warnings": warnings, "finished": finished,
            "excerpt": lines, "launch_error": fail[0].split(" ", 3)[-1] if fail else None}


def run_sanitizer(san: str, tool: str, plan_file: Path, gpu: str, timeout: float) -> str:
    """compute-sanitizer over a launcher process on one GPU: its output. On a timeout the whole
    process group goes (the tool and the launcher under it: a hung kernel must not keep the GPU)."""
    import signal
    cmd = [san, "--tool", tool, "--print-limit", "100000", sys.executable, "-m", "asyncguard.emit.launcher",
           "once", str(plan_file)]
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=gpu)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                         start_new_session=True)
    try:
        text, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        text, _ = p.communicate()
        text = (text or "") + "\n[asyncguard: timed out]"
    return text or ""


def _sanitize_one(san, tool, plan, work, timeout, gpu):
    pf = work / f"{plan['kernel']}.plan.json"
    pf.write_text(json.dumps([plan]))
    text = run_sanitizer(san, tool, pf, gpu, timeout)
    (work / f"{plan['kernel']}.{tool}.log").write_text(text)
    return parse_sanitizer(tool, text, plan["id"])


_BLOCK_START = re.compile(r"^========= (?:(Error|Warning): Race reported|Barrier error detected|[A-Z][^:]*error)")
_IN_FILE = re.compile(r" in (ag\w+?)\.cu:\d+")


def attribute_reports(tool: str, text: str, plans: list) -> tuple[dict, bool]:
    """Split one sanitizer process's output over the kernels it ran: each report block names the
    skeleton's source file (`<kernel>.cu:<line>`). (id -> result, trustworthy): trustworthy when
    every block names one of the kernels and the blocks add up to the tool's own summary count."""
    names = {p["kernel"]: p for p in plans}
    blocks, cur = [], None
    for ln in text.splitlines():
        if _BLOCK_START.match(ln):
            cur = [ln]
            blocks.append(cur)
        elif cur is not None and ln.startswith("=========     "):
            cur.append(ln)
        else:
            cur = None
    per = {k: [] for k in names}
    unattributed = 0
    for b in blocks:
        m = _IN_FILE.search("\n".join(b))
        if m and m.group(1) in per:
            per[m.group(1)].append(b)
        else:
            unattributed += 1
    m = _RACE_SUMMARY.search(text) if tool == "racecheck" else _ERR_SUMMARY.search(text)
    total = int(m.group(1)) if m else None
    ok = total is not None and unattributed == 0 and total == sum(len(v) for v in per.values())
    out = {}
    for k, p in names.items():
        bl = per[k]
        warn = sum("Warning: Race" in b[0] for b in bl)
        out[p["id"]] = {"hazards": len(bl), "errors": len(bl) - warn, "warnings": warn,
                        "finished": f"{MARK} END {p['id']}" in text, "excerpt": [x for b in bl for x in b][:12],
                        "launch_error": None, "batched": True}
    return out, ok


def _sanitize_batch(san, tool, plans, work, timeout, gpu) -> dict:
    """Several kernels in one sanitizer process (its start-up is most of a small kernel's cost),
    each report attributed by the skeleton file it names. Any doubt -- a block naming no kernel,
    counts that do not add up to the summary, a kernel that did not finish -- and those kernels
    run again one per process."""
    if len(plans) == 1:
        return {plans[0]["id"]: _sanitize_one(san, tool, plans[0], work, timeout, gpu)}
    pf = work / f"batch_{plans[0]['kernel']}.{tool}.plan.json"
    pf.write_text(json.dumps(plans))
    text = run_sanitizer(san, tool, pf, gpu, timeout * len(plans))
    (work / f"batch_{plans[0]['kernel']}.{tool}.log").write_text(text)
    results, ok = attribute_reports(tool, text, plans)
    for p in plans:
        if not ok or not results[p["id"]]["finished"]:
            results[p["id"]] = _sanitize_one(san, tool, p, work, timeout, gpu)
    return results


class _SanitizerFeed:
    """compute-sanitizer runs fed while the plain launches go on: kernels are added as their plain
    runs come in, and every `--sanitizer-batch` of them start one racecheck and one synccheck
    process (spread over the GPUs round-robin, at most `--sanitizer-jobs` at once)."""

    def __init__(self, san, work, gpus, args, by_id, hold=()):
        import threading
        from concurrent.futures import ThreadPoolExecutor
        self.san, self.work, self.gpus, self.by_id = san, work, gpus, by_id
        # plans with a long launch limit (long pipelines: 86 s on the H200) run first; kernels of
        # other CUDA contexts time-slice the GPU with them and would stretch their wall time past
        # the limit, so no tool process starts until these have launched
        self.hold = set(hold)
        self.timeout = args.sanitizer_timeout
        self.size = max(1, getattr(args, "sanitizer_batch", 1) or 1)
        self.ex = ThreadPoolExecutor(max(1, args.sanitizer_jobs))
        self.lock = threading.Lock()
        self.pending: list = []
        self.futs: list = []
        self.kernels = 0

    def add(self, plan: dict) -> None:
        with self.lock:
            self.pending.append(plan)
            self.kernels += 1
            while not self.hold and len(self.pending) >= self.size:
                self._submit()

    def launched(self, kid: str) -> None:
        """A plain launch is in (whatever its result): it no longer holds the tools back."""
        with self.lock:
            self.hold.discard(kid)
            while not self.hold and len(self.pending) >= self.size:
                self._submit()

    def _submit(self) -> None:
        batch, self.pending = self.pending[:self.size], self.pending[self.size:]
        for tool in ("racecheck", "synccheck"):
            gpu = self.gpus[len(self.futs) % len(self.gpus)]
            self.futs.append((tool, self.ex.submit(_sanitize_batch, self.san, tool, batch, self.work,
                                                   self.timeout, gpu)))

    def finish(self, tick) -> int:
        """Wait for every run and record each kernel's reports: the number of checks."""
        with self.lock:
            self.hold.clear()
            while self.pending:
                self._submit()
        for n, (tool, f) in enumerate(self.futs, 1):
            for kid, res in f.result().items():
                if not (self.by_id[kid].result.get(tool) or {}).get("not_run"):   # (a tool that misreads it)
                    self.by_id[kid].result[tool] = res
            tick(n, len(self.futs))
        self.ex.shutdown()
        return 2 * self.kernels


def parse_delay(text: str) -> dict:
    """`LINE:WARP[@US]` (e.g. `23:1@50`): hold warp WARP back US microseconds (default: the
    replay's phase delay) before the statement at LINE, at every instance."""
    from .replay import PHASE_DELAY_US
    where, _, us = text.partition("@")
    line, _, warp = where.partition(":")
    return {"line": int(line), "warp": int(warp), "loops": {}, "us": int(us or PHASE_DELAY_US)}


def run_child(plan_file: str, trace_dir: str | None = None) -> int:
    """`asyncguard sanitize --child PLANS.json`: launch each plan once between markers."""
    from .launcher import launch_plans
    return launch_plans(plan_file, trace_dir)


def find_sanitizer() -> str | None:
    import shutil
    return shutil.which("compute-sanitizer") or next(
        (p for p in ("/usr/local/cuda/bin/compute-sanitizer", "/usr/local/cuda/compute-sanitizer/compute-sanitizer")
         if os.path.exists(p)), None)


def _log(msg: str) -> None:
    print(f"asyncguard sanitize: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the command
def prepare_only(args) -> int:
    """`asyncguard sanitize --prepare-only`: everything before the GPU -- static check, skeleton,
    reference, and the compile of every distinct skeleton for sm_90a (NVRTC, else nvcc) -- with
    each kernel's preparation and compile time: the CPU side of a run, measured where no GPU is.
    Exit 0, or 1 when a skeleton does not compile."""
    from concurrent.futures import ProcessPoolExecutor
    t_start = time.time()
    jobs = max(1, args.jobs or os.cpu_count() or 1)
    cases = prepare(args.files, jobs, getattr(args, "prepare_timeout", 60.0),
                    progress=stderr_progress("prepared file"), replay=getattr(args, "replay", False),
                    strict=tuple(getattr(args, "strict", None) or ()))
    t_prep = time.time() - t_start
    work = Path(args.keep or tempfile.mkdtemp(prefix="agsan-"))
    work.mkdir(parents=True, exist_ok=True)
    todo, first_of = [], {}
    for c in cases:
        if c.emitted is None:
            c.result["status"] = "not emitted"
            continue
        key = skeleton_key(c)
        if key in first_of:
            c.same_as = first_of[key]
            continue
        first_of[key] = c
        todo.append(c)
    t0 = time.time()
    jobs_ = [(c.emitted.source, c.emitted.kernel, "sm_90a", str(work / f"{c.emitted.kernel}.cubin")) for c in todo]
    tick = stderr_progress("compiled")
    with ProcessPoolExecutor(jobs) as pool:
        for i, (c, (cubin, how, err)) in enumerate(zip(todo, pool.map(compile_job, jobs_, chunksize=1)), 1):
            c.result.update(status="compiled" if err is None else "compile failed", compiler=how)
            if err is not None:
                c.result["error"] = err
            tick(i, len(todo))
    t_comp = time.time() - t0
    bad = [c for c in todo if c.result["status"] != "compiled"]
    for c in sorted(cases, key=lambda c: -c.seconds):
        status = f"SKIP {c.skip}" if c.skip else (
            f"same skeleton as {c.same_as.id}" if c.same_as else c.result.get("status", ""))
        print(f"{c.seconds:8.2f} s  {c.id}  {status[:160]}")
    _log(f"{len(cases)} kernel(s) prepared in {t_prep:.1f}s ({sum(c.skip is not None for c in cases)} skipped, "
         f"--jobs {jobs}); {len(todo)} distinct skeleton(s) compiled in {t_comp:.1f}s ({len(bad)} failed)")
    if args.json:
        rows = [dict(_row(c), compile=c.result.get("status"), compile_error=c.result.get("error"))
                for c in cases]
        Path(args.json).write_text(json.dumps(rows, indent=1, default=str))
    return 1 if bad else 0


def main(args) -> int:
    if getattr(args, "child", None):
        return run_child(args.child, getattr(args, "trace_dir", None))
    if getattr(args, "prepare_only", False):
        return prepare_only(args)
    try:
        gpus = visible_gpus(getattr(args, "gpus", 0) or 0)
        if not gpus:
            raise GpuError("no CUDA device")
        gpu = Gpu()
    except Exception as err:  # noqa: BLE001 -- ImportError, no driver, no device
        print(f"asyncguard sanitize: no GPU: {type(err).__name__}: {err}", file=sys.stderr)
        return 2
    san = find_sanitizer()
    if san is None and not args.no_sanitizer:
        print("asyncguard sanitize: no compute-sanitizer on PATH (or /usr/local/cuda/bin)", file=sys.stderr)
        return 2
    t_start = t0 = time.time()
    jobs = max(1, args.jobs or os.cpu_count() or 1)
    cases = prepare(args.files, jobs, getattr(args, "prepare_timeout", 60.0),
                    progress=stderr_progress("prepared file"), replay=getattr(args, "replay", False),
                    strict=tuple(getattr(args, "strict", None) or ()),
                    delays=tuple(parse_delay(d) for d in getattr(args, "delay", None) or ()))
    _log(f"{gpu.name} ({gpu.arch}) x {len(gpus)}; {len(cases)} kernel(s) prepared in {time.time() - t0:.1f}s "
         f"({sum(c.skip is not None for c in cases)} skipped)")
    work = Path(args.keep or tempfile.mkdtemp(prefix="agsan-"))
    work.mkdir(parents=True, exist_ok=True)
    todo, first_of = [], {}
    for c in cases:
        res = c.result
        if c.emitted is None:
            res["status"] = "not emitted"
            continue
        (work / f"{c.emitted.kernel}.cu").write_text(c.emitted.source)
        if c.plan["hopper"] and gpu.cc[0] < 9:
            res["status"] = f"not run: needs sm_90 ({gpu.arch})"
            continue
        if c.hang:
            res["status"] = f"not launched: the engine predicts a hang ({c.hang})"
            continue
        key = skeleton_key(c)
        if key in first_of:              # same code, launch and expected trace: run it once
            c.same_as = first_of[key]
            continue
        first_of[key] = c
        todo.append(c)
    t0 = time.time()
    from concurrent.futures import ProcessPoolExecutor
    compile_jobs = [(c.emitted.source, c.emitted.kernel, gpu.arch, str(work / f"{c.emitted.kernel}.cubin"))
                    for c in todo]
    from .replay import replay_jobs
    extra = replay_jobs(todo, work, gpu.arch) if getattr(args, "replay", False) else []
    compiled = []
    tick = stderr_progress("compiled")
    # the replays are compiled after the plain launches, only for the kernels that need one
    with ProcessPoolExecutor(jobs) as pool:
        for i, r in enumerate(pool.map(compile_job, compile_jobs, chunksize=1), 1):
            compiled.append(r)
            tick(i, len(compile_jobs))
    plans = []
    for c, (cubin, how, err) in zip(todo, compiled):
        if err is not None:
            c.result["status"], c.result["error"] = "compile failed", err
            continue
        c.plan["cubin"] = cubin
        c.plan["launch_timeout"] = launch_limit(c.plan, args.launch_timeout)
        c.result["compiler"] = how
        plans.append(c.plan)
    _log(f"{len(todo)} distinct skeleton(s) compiled in {time.time() - t0:.1f}s "
         f"({sum(c.same_as is not None for c in cases)} kernel(s) share one of them)")
    t0 = time.time()
    by_id = {c.id: c for c in cases}
    per_gpu = max(1, getattr(args, "launchers_per_gpu", 1) or 1)
    # the tools start on a kernel as soon as its plain launch is in (they used to wait for the
    # last launch): a batch of --sanitizer-batch kernels per process, racecheck and synccheck at once
    feed = _SanitizerFeed(san, work, gpus, args, by_id,
                          hold=[p["id"] for p in plans if p["launch_timeout"] > args.launch_timeout]) \
        if san and not args.no_sanitizer else None
    done: set = set()

    def take(kid, run):
        if kid in done:
            return
        done.add(kid)
        c = by_id[kid]
        if feed is not None:
            feed.launched(kid)
        if "error" in run:
            c.result["status"], c.result["error"] = "launch failed", run["error"]
            c.result["gpu"] = run.get("gpu")
            _log(f"FAULT {kid} (GPU {run.get('gpu')}): {run['error']}")
            return
        c.result.update(status="ran", timeouts=run["timeouts"], overruns=run.get("overruns", 0), attrs=run["attrs"],
                        not_taken=run["not_taken"], seconds=round(run["seconds"], 4), trace=compare(c, run),
                        gpu=run.get("gpu"))
        if run["timeouts"]:
            # a kernel whose plain run had waits give up already fails (a hang shown on the GPU);
            # under the tools every wait would spin to its limit (up to --sanitizer-timeout each,
            # most of a variants run's time), so the tools are not run on it
            for tool in ("racecheck", "synccheck"):
                c.result[tool] = {"hazards": None, "not_run": HANG_SHOWN}
        elif feed is not None:
            if COUNTING_CP_ASYNC_ARRIVE in c.emitted.features:
                c.result["synccheck"] = {"hazards": None, "not_run": COUNTING_ARRIVE_NOTE}
            feed.add(c.plan)

    runs = run_isolated(plans, work, gpus, args.launch_timeout, per_gpu=per_gpu, on_result=take,
                        progress=stderr_progress(f"launched on {len(gpus)} GPU(s) x {per_gpu} launcher(s)"))
    for kid, run in runs.items():
        take(kid, run)
    _log(f"{len(plans)} launch(es) in {time.time() - t0:.1f}s")
    replays = None
    if extra:
        # a finding whose plain run already shows (trace, timeout, fault) is 'confirmed by plain
        # run' whatever a replay does: only kernels whose plain launch showed nothing are
        # replayed (in the variants most launches fail, and each replay is another launch),
        # beside the sanitizer runs
        import threading
        from .replay import run_replays
        wanted = [i for i, ((c, _), _) in enumerate(extra)
                  if c.result.get("status") == "ran" and not plain_run_shows(c.result)]
        sel = [extra[i] for i in wanted]
        for (c, entry), _ in extra:
            if plain_run_shows(c.result):
                entry.setdefault("why", "not run: the plain run already shows it")
        t1 = time.time()
        with ProcessPoolExecutor(jobs) as pool:
            sel_compiled = list(pool.map(compile_job, [j for _, j in sel], chunksize=1)) if sel else []
        _log(f"{len(sel)} of {len(extra)} replay(s) to run, compiled in {time.time() - t1:.1f}s "
             "(the others' plain runs already show the bug)")
        replays = threading.Thread(target=run_replays, daemon=True,
                                   args=(sel, sel_compiled, work, gpus, args.launch_timeout, compare))
        replays.start()
    if feed is not None:
        n_checks = feed.finish(stderr_progress("sanitizer processes"))
        _log(f"{n_checks} sanitizer checks ({len(feed.futs)} processes of up to {feed.size} kernels) "
             f"done {time.time() - t0:.1f}s after the first launch")
    if replays is not None:
        replays.join()
    for c in cases:
        if c.same_as is not None:
            c.result = dict(c.same_as.result, same_as=c.same_as.id)
    for c in cases:
        _judge(c, args.no_sanitizer)
    if extra:
        from .replay import judge_replays
        for c in cases:
            judge_replays(c)
    _print(cases)
    total = time.time() - t_start
    _log(f"{len(cases)} kernel(s) in {total:.1f}s on {len(gpus)} GPU(s): "
         f"{sum(c.result['verdict'] == 'pass' for c in cases)} pass, {sum(c.result['verdict'] == 'fail' for c in cases)} fail, "
         f"{sum(c.result['verdict'] == 'skip' for c in cases)} skip; agree {sum(agree(c) == 'yes' for c in cases)} yes, "
         f"{sum(agree(c) == 'no' for c in cases)} no")
    if args.junit:
        Path(args.junit).write_text(_junit(cases))
    if args.json:
        Path(args.json).write_text(json.dumps([_row(c) for c in cases], indent=1, default=str))
    return 1 if any(c.result["verdict"] == "fail" for c in cases) else 0


HANG_SHOWN = "not run: the plain run's mbarrier waits timed out (the hang is shown without the tools)"
COUNTING_ARRIVE_NOTE = ("not run: synccheck reports 'Missing wait' at a thread's first arrive after "
                        "cp.async.mbarrier.arrive without .noinc and stops the kernel, where the H200 "
                        "follows the PTX ISA (the phase waits for that arrive; probe: "
                        "bench/sanitizer_h200/2026-12-03-session26/probe/; docs/sanitizer-gate.md)")


def plain_run_shows(result: dict) -> bool:
    """The plain launch already failed on its own evidence: a fault or hang, a trace or sink
    that differs from the reference, or a wait that gave up."""
    if result.get("status") != "ran":
        return result.get("status") == "launch failed"
    tr = result.get("trace") or {}
    return bool(tr.get("mismatches") or tr.get("count_mismatches") or tr.get("sink_mismatches")
                or result.get("timeouts"))

ARRIVE_NOTE = ("not counted: racecheck reports accesses ordered by bar.arrive -> bar.sync as hazards; PTX: "
               "barrier.cta.arrive guarantees that when the barrier completes, the arriving thread's prior "
               "accesses are performed relative to all participating threads (docs/sanitizer-gate.md)")
ELECTED_NOTE = ("not counted: racecheck reports stores ordered by a barrier and then one elected thread's "
                "mbarrier arrive as hazards; PTX: the barrier synchronizes the storing threads with the "
                "elected one, whose arrive releases to the waiters, and causality order is transitive "
                "(an H200 probe: bench/probes/racecheck_bar_then_mbarrier.cu; docs/sanitizer-gate.md)")


def racecheck_false_positive(c: Case, r: dict) -> str:
    """Why racecheck's reports do not count, or "": the checker found no synchronization bug, the
    trace equals the reference, synccheck is clean, no wait timed out, and the skeleton orders
    threads with something racecheck does not model as a release: bar.arrive, or an mbarrier
    arrive by one elected thread on behalf of threads that met it at a barrier before."""
    t, sc = r.get("racecheck") or {}, r.get("synccheck") or {}
    tr = r.get("trace") or {}
    if not (bool(t.get("hazards")) and sc.get("hazards") == 0 and c.emitted is not None
            and not any(x.startswith(SYNC_RULES) for x in c.static_rules) and c.static in ("clean", "warnings")
            and not (tr.get("mismatches") or tr.get("count_mismatches") or tr.get("sink_mismatches"))
            and not r.get("timeouts")):
        return ""
    if "named_barrier_arrive" in c.emitted.features:   # the op the skeleton emits as ag_bar_arrive
        return ARRIVE_NOTE
    if ELECTED_ARRIVE in c.emitted.features:
        return ELECTED_NOTE
    return ""


def _judge(c: Case, no_san: bool) -> None:
    r = c.result
    why = []
    if r.get("status") != "ran":
        st = str(r.get("status", ""))
        r["verdict"] = "skip" if st.startswith("not") or st == "compile failed" else "fail"
        r["why"] = [c.skip or r.get("error") or st]
        return
    tr = r["trace"]
    if r.get("overruns"):
        r["verdict"] = "skip"
        r["why"] = [f"reference incomplete: {r['overruns']} copies in traced blocks ran past the pool the "
                    "reference sized (the trace cannot be compared)"]
        return
    if tr.get("shape_error"):
        why.append(f"trace: {tr['shape_error']}")
    if tr["mismatches"] or tr["count_mismatches"]:
        why.append(f"trace: {tr['mismatches']} read(s) differ, {tr['count_mismatches']} thread(s) with a different read count")
    if tr.get("sink_mismatches"):
        why.append(f"TMA-store sink: {tr['sink_mismatches']} byte(s) differ from the reference")
    if r["timeouts"]:
        why.append(f"{r['timeouts']} mbarrier wait(s) timed out")
    if r["not_taken"]:
        why.append("launch attributes not taken: " + "; ".join(r["not_taken"]))
    if not tr["mismatches"] and not tr["count_mismatches"]:
        why += unwritten_reads_shown(c)
    note = "" if no_san else racecheck_false_positive(c, r)
    discount = bool(note)
    if discount:
        r["racecheck_discounted"] = f"racecheck: {r['racecheck']['hazards']} report(s) {note}"
    for tool in ("racecheck", "synccheck"):
        t = r.get(tool)
        if no_san or (tool == "racecheck" and discount) or (t or {}).get("not_run"):
            continue
        if t is None or t.get("hazards") is None:
            why.append(f"{tool}: no report")
        elif t["hazards"]:
            why.append(f"{tool}: {t['hazards']} report(s)")
        elif t.get("launch_error"):
            why.append(f"{tool}: launch failed under the tool ({t['launch_error']})")
        elif not t.get("finished", True):
            why.append(f"{tool}: run did not finish")
    r["verdict"] = "fail" if why else "pass"
    r["why"] = why + ([r["racecheck_discounted"]] if discount else [])


def unwritten_reads_shown(c: Case) -> list:
    """AG417 on the GPU: the trace equals the reference, and the reference has reads at the
    finding's line that no write had reached, so on the GPU they returned the initial fill
    pattern (the bytes were never written before the read, in the schedule that ran)."""
    out = []
    for f in c.findings or []:
        line = f.get("line")
        n = sum(ref.unwritten_reads.get(line, 0) for ref in c.refs or [])
        if f.get("rule") == "AG417" and n:
            out.append(f"AG417 line {line}: {n} read(s) returned the initial fill pattern on the GPU "
                       "(no write had reached those bytes)")
    return out


SYNC_RULES = ("AG1", "AG2", "AG3", "AG4")   # the rule families the gate observes; AG5xx are resources


def agree(c: Case) -> str:
    return agreement(c.static, c.static_rules, c.result.get("verdict"), c.result.get("status"))


def agreement(static: str, rules: list, verdict: str | None, status: str | None) -> str:
    """Does the static synchronization verdict match the GPU's (yes / no / n/a)? Resource findings
    (AG5xx: limits, alignment) are not synchronization: a kernel with only those is compared as
    clean, except that a launch the GPU refuses or faults confirms them."""
    d = {"pass": "clean", "fail": "buggy"}.get(verdict or "", "n/a")
    if d == "n/a" or static not in ("clean", "buggy", "warnings"):
        return "n/a"
    if d == "buggy" and status == "launch failed" and any(r.startswith("AG5") for r in rules):
        return "yes"
    s = "buggy" if any(r.startswith(SYNC_RULES) for r in rules) else "clean"
    return "yes" if s == d else "no"


def _row(c: Case) -> dict:
    r = c.result
    return {"kernel": c.id, "static": c.static, "static_rules": c.static_rules, "status": r.get("status"),
            "verdict": r.get("verdict"), "why": r.get("why"), "trace": r.get("trace"),
            "racecheck": r.get("racecheck"), "synccheck": r.get("synccheck"), "timeouts": r.get("timeouts"),
            "attrs": r.get("attrs"), "not_taken": r.get("not_taken"), "agree": agree(c),
            "not_emitted": c.skip, "hang": c.hang, "error": r.get("error"),
            "same_as": r.get("same_as"), "gpu": r.get("gpu"), "racecheck_discounted": r.get("racecheck_discounted"),
            "replay": r.get("replay"), "prepare_seconds": c.seconds,
            "launch_seconds": r.get("seconds"), "launch_limit": (c.plan or {}).get("launch_timeout")}


def _cell(t):
    return "-" if t is None else (str(t["hazards"]) if t.get("hazards") is not None else "?")


def _print(cases) -> None:
    for c in cases:
        r = c.result
        tr = r.get("trace")
        trace = "-" if tr is None else ("ok" if not (tr["mismatches"] or tr["count_mismatches"]) else f"{tr['mismatches']} differ")
        if tr is not None and tr.get("sink_mismatches"):
            trace += f", sink {tr['sink_mismatches']} B differ"
        print(f"{r['verdict'].upper():4} {c.id}  static={c.static} racecheck={_cell(r.get('racecheck'))} "
              f"synccheck={_cell(r.get('synccheck'))} trace={trace} agree={agree(c)}")
        if r.get("same_as"):
            print(f"       same skeleton as {r['same_as']} (its run)")
        for w in r.get("why") or []:
            print(f"       {w}")
        for x in r.get("replay") or []:
            print(f"       {x['rule']} line {x['line']}: {'confirmed by ' if x['confirmed'] != 'not confirmed' else ''}"
                  f"{x['confirmed']} ({x['how']})")


def _junit(cases) -> str:
    fails = sum(c.result["verdict"] == "fail" for c in cases)
    skips = sum(c.result["verdict"] == "skip" for c in cases)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuite name="asyncguard-sanitize" tests="{len(cases)}" failures="{fails}" skipped="{skips}">']
    for c in cases:
        r = c.result
        out.append(f'  <testcase classname={xs.quoteattr(c.path)} name={xs.quoteattr(c.func)}>')
        msg = "; ".join(str(w) for w in (r.get("why") or []))
        if r["verdict"] == "fail":
            out.append(f'    <failure message={xs.quoteattr(msg[:500])}>{xs.escape(json.dumps(_row(c), default=str))}</failure>')
        elif r["verdict"] == "skip":
            out.append(f'    <skipped message={xs.quoteattr(msg[:500])}/>')
        out.append("  </testcase>")
    out.append("</testsuite>")
    return "\n".join(out) + "\n"
