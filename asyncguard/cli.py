"""`asyncguard check FILE...` and friends. Exit 0 clean, 1 findings, 2 usage or input error."""
from __future__ import annotations

import argparse
import sys

from . import __version__
from .analyze import Limits
from .checks.mbarrier import STRICT_READINGS
from .diagnostics import RULES
from .parse import InputError
from .report import render_json, render_text
from .cache import default_dir as default_cache_dir
from .config import ConfigError, Resolver
from .report.sarif import render_sarif
from .report.text import use_colour
from .runner import check_paths
from .checks import redundant as _redundant  # noqa: F401  (AG6xx rules: opt-in lint)
from .repair.cli import add_fix_parser
from .executors import ExecutorError, open_executor


# the --redundant lint's default time budget per file: one checker run per sync statement, and a
# streamed 2-CTA GEMM's run takes 10 s (its lint took 116 s)
REDUNDANT_SECONDS = 120.0


def _selectors(values) -> list[str] | None:
    if not values:
        return None
    return [s.strip() for v in values for s in v.split(",") if s.strip()]


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return n


def _size(text: str) -> int:
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
    try:
        n = int(text[:-1] if mult > 1 else text) * mult
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a size in bytes (e.g. 1048576, 512K, 4M), got {text!r}")
    return n


def cmd_check(args) -> int:
    limits = Limits(max_steps=args.max_steps, max_threads=args.max_threads,
                    max_file_bytes=args.max_file_size, max_seconds=args.timeout,
                    strict=tuple(args.strict or ()))
    try:  # config per file (pyproject.toml [tool.asyncguard], or --config); flags override it
        resolver = Resolver(args.config, _selectors(args.select), _selectors(args.ignore),
                            getattr(args, "arch", None))
        extra = {"assumptions": list(args.assume)} if getattr(args, "assume", None) else None
        cache_dir = None if args.no_cache else str(default_cache_dir())
        with open_executor(args.executor) as executor:
            results, cfg_errors = check_paths(args.files, limits, resolver, jobs=args.jobs,
                                              progress=False if args.no_progress else None,
                                              check_kwargs=extra, executor=executor,
                                              cache_dir=cache_dir, emit_tir=args.emit_tir)
    except (ConfigError, ExecutorError) as e:
        cfg_errors = [e]
    if cfg_errors:
        for e in cfg_errors:
            print(str(e), file=sys.stderr)
        return 2
    if getattr(args, "redundant", False):   # opt-in: one more checker run per sync statement
        from .repair.redundant import add_to_results
        add_to_results(results, limits, args.redundant_timeout or None)
    reports = [r.report for r in results if r.report is not None]
    errors = [InputError(*r.error, r.path) for r in results if r.error]
    if args.emit_tir:
        n = sum(1 for r in results if r.source is not None and r.text is not None)
        print(f"asyncguard: wrote {n} lowered kernel(s) to {args.emit_tir}", file=sys.stderr)
    sources = {r.path: r.lines for r in results}
    if args.format == "json":
        print(render_json(reports, errors))
    elif args.format == "sarif":
        print(render_sarif(reports, errors, sources))
    else:
        for e in errors:
            print(str(e), file=sys.stderr)
        if reports:
            print(render_text(reports, sources, use_colour(sys.stdout, args.color)))
    if getattr(args, "resources", False) and args.format == "text":
        from .checks.resources import render_table
        print(render_table([dict(k.resources, path=r.path) for r in reports for k in r.kernels]))
    if args.witness_svg:
        from .report.witness_svg import write_witness_pictures
        for written in write_witness_pictures(reports, sources, args.witness_svg):
            print(f"asyncguard: wrote {written}", file=sys.stderr)
    if errors:
        return 2
    return 1 if any(r.findings for r in reports) else 0


def cmd_rules(args) -> int:
    for r in sorted(RULES.values(), key=lambda r: r.code):
        print(f"{r.code}  {r.name:<28} {r.kind:<12} {r.severity:<8} {r.summary}")
    return 0


def cmd_explain(args) -> int:
    key = args.rule
    r = RULES.get(key.upper()) or next((x for x in RULES.values() if x.name == key), None)
    if r is None:
        print(f"asyncguard: unknown rule {key!r} (see `asyncguard rules`)", file=sys.stderr)
        return 2
    print(f"{r.code} {r.name} ({r.kind}, {r.severity})\n{r.summary}\n\n{r.doc}")
    return 0


def cmd_sanitize(args) -> int:
    from .emit.gate import main as sanitize_main   # GPU gate: needs cuda-python, imported lazily
    return sanitize_main(args)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="asyncguard", description=__doc__)
    ap.add_argument("--version", action="version", version=f"asyncguard {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="check TIR files for shared-memory synchronization bugs")
    c.add_argument("files", nargs="+",
                   help="TIR files, TileLang .py modules, or directories (recursing over *.tir and "
                        "the *.py files that import tilelang)")
    c.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    c.add_argument("--select", action="append", metavar="RULES",
                   help="only these rules (codes, prefixes such as AG1, names, ALL; comma-separated)")
    c.add_argument("--ignore", action="append", metavar="RULES", help="skip these rules")
    c.add_argument("--config", metavar="PYPROJECT",
                   help="use this pyproject.toml's [tool.asyncguard] instead of the nearest one")
    c.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                   help="check files in N worker processes (0: one per CPU)")
    c.add_argument("--executor", metavar="URL",
                   help="run the work on an executor instead of --jobs processes: "
                        "dask://HOST:PORT (a Dask distributed scheduler; needs asyncguard[dask]; "
                        "--timeout does not apply in Dask's worker threads)")
    c.add_argument("--no-cache", action="store_true",
                   help="do not read or write the results cache (default: on, in the user cache "
                        "directory, or $ASYNCGUARD_CACHE_DIR)")
    c.add_argument("--emit-tir", metavar="DIR",
                   help="write the device TIR lowered from .py kernels to DIR "
                        "(NAME.KERNEL[.ARGSET].ARCH.tir; `check` on it reproduces a finding)")
    c.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the text output (auto: on a terminal unless NO_COLOR is set)")
    c.add_argument("--no-progress", action="store_true",
                   help="no progress bar on stderr (shown on a terminal for more than 8 files)")
    c.add_argument("--witness-svg", metavar="FILE",
                   help="draw each finding's witness: FILE.svg (then FILE-2.svg, ...) or one FILE.html")
    c.add_argument("--assume", action="append", metavar="EXPR",
                   help="a fact about a symbolic size, e.g. 'K >= 1' or 'K %% 32 == 0' (repeatable; "
                        "overrides [tool.asyncguard.assumptions])")
    c.add_argument("--arch", metavar="SM",
                   help="target architecture for the resource checks (sm_70 ... sm_120a); "
                        "overrides the TIR's target attr; .py kernels are lowered for it only "
                        "(default: [tool.asyncguard.tilelang] archs)")
    c.add_argument("--resources", action="store_true",
                   help="print each kernel's shared-memory budget and occupancy table")
    c.add_argument("--max-steps", type=int, default=2_000_000,
                   help="statement instances the concrete engine may execute per kernel")
    c.add_argument("--max-threads", type=_positive, default=1024, metavar="N",
                   help="threads per block the concrete engine simulates (memory grows as N^2)")
    c.add_argument("--max-file-size", type=_size, default=1 << 20, metavar="BYTES",
                   help="larger files are reported AG002 and not parsed (suffixes K, M; 0: no limit)")
    c.add_argument("--timeout", type=float, default=60, metavar="SECONDS",
                   help="stop the concrete engine after SECONDS per kernel and report AG002 "
                        "(default 60; 0: none). TileLang's examples take under a second at the "
                        "median and up to about 20 s on 2 cores; a kernel that hits it is unknown, "
                        "and whether it does depends on the machine's speed")
    c.add_argument("--strict", action="append", choices=STRICT_READINGS,
                   help="also apply an opt-in strict reading (docs/model.md): lapped idle waiters, proxy fences")
    c.add_argument("--redundant", action="store_true",
                   help="also report syncs whose removal leaves the kernel race-free (AG601-AG603; "
                        "re-runs the checker per sync)")
    c.add_argument("--redundant-timeout", type=float, default=REDUNDANT_SECONDS, metavar="SECONDS",
                   help=f"stop the --redundant lint of a file after SECONDS (default {REDUNDANT_SECONDS:g}; "
                        "0: no limit); a scope line says which syncs were not examined")
    c.set_defaults(fn=cmd_check)
    r = sub.add_parser("rules", help="list every rule")
    r.set_defaults(fn=cmd_rules)
    e = sub.add_parser("explain", help="print a rule's documentation")
    e.add_argument("rule")
    e.set_defaults(fn=cmd_explain)
    add_fix_parser(sub)
    z = sub.add_parser("sanitize", help="run each kernel's synchronization skeleton on a GPU under "
                                         "compute-sanitizer (exit 0 pass, 1 failure, 2 no GPU / no sanitizer)")
    z.add_argument("files", nargs="*", help="TIR files or directories (recursing over *.tir)")
    z.add_argument("--junit", metavar="FILE", help="write a JUnit XML report")
    z.add_argument("--json", metavar="FILE", help="write every kernel's results as JSON")
    z.add_argument("--strict", action="append", choices=STRICT_READINGS,
                   help="judge (and with --replay, replay) the opt-in strict findings too")
    z.add_argument("--delay", action="append", metavar="LINE:WARP[@US]",
                   help="hold a warp back before the statement at LINE in every plain run (repeatable): "
                        "the schedule of a replay, applied to e.g. the repaired kernel")
    z.add_argument("--keep", metavar="DIR", help="keep the emitted .cu, cubins and sanitizer logs in DIR")
    z.add_argument("--no-sanitizer", action="store_true",
                   help="trace check and launch attributes only (no compute-sanitizer runs)")
    z.add_argument("--sanitizer-timeout", type=int, default=120, metavar="S",
                   help="seconds each compute-sanitizer run (one kernel, one tool) may take")
    z.add_argument("--sanitizer-jobs", type=int, default=6, metavar="N",
                   help="compute-sanitizer processes run at once (one per kernel and tool)")
    z.add_argument("--jobs", type=int, default=0, metavar="N",
                   help="processes preparing and compiling kernels (default: one per CPU)")
    z.add_argument("--sanitizer-batch", type=int, default=1, metavar="N",
                   help="kernels per compute-sanitizer process, reports attributed by skeleton file; any "
                        "doubt reruns a kernel alone (default 1: one process per kernel and tool)")
    z.add_argument("--gpus", type=int, default=0, metavar="N",
                   help="launch on the first N visible GPUs, one launcher process each (default: all)")
    z.add_argument("--launchers-per-gpu", type=int, default=2, metavar="N",
                   help="launcher processes per GPU, each its own CUDA context (default 2)")
    z.add_argument("--replay", action="store_true",
                   help="also replay each static finding's witness schedule on the GPU (delay the warps it names)")
    z.add_argument("--prepare-timeout", type=float, default=60.0, metavar="S",
                   help="seconds to check, emit and compute the reference of one file (then SKIP)")
    z.add_argument("--launch-timeout", type=float, default=60.0, metavar="S",
                   help="seconds one kernel's launch may take before its launcher is killed (a hang)")
    z.add_argument("--prepare-only", action="store_true",
                   help="no GPU: check, emit, compute the references and compile the skeletons, with times")
    z.add_argument("--child", help=argparse.SUPPRESS)
    z.add_argument("--trace-dir", help=argparse.SUPPRESS)
    z.set_defaults(fn=cmd_sanitize)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except BrokenPipeError:   # `asyncguard check ... | head`: the reader left; no traceback
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 2


if __name__ == "__main__":
    sys.exit(main())
