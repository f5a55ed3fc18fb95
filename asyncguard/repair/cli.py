"""`asyncguard fix FILE...`: print the minimal repair as a unified diff; `--write` applies it.

Exit codes as `check`: 0 nothing to fix, 1 findings (fixed or not), 2 input errors.
"""
from __future__ import annotations

import sys

from ..analyze import Limits
from ..checks.mbarrier import STRICT_READINGS
from ..parse import InputError
from ..runner import collect, is_python, read
from .edits import unified_diff
from .search import repair_text
from .write import FileChanged, atomic_write, digest


# the default time budget of one file's repair search: a kernel whose every check takes seconds
# (a varlen backward run for 23 input patterns and 21 lengths) may need thousands of them
FIX_SECONDS = 300.0


def add_fix_parser(sub) -> None:
    f = sub.add_parser("fix", help="repair synchronization bugs with the fewest syncs (unified diff)")
    f.add_argument("files", nargs="+", help="TIR files or directories (recursing over *.tir)")
    f.add_argument("--write", action="store_true",
                   help="rewrite the files in place (atomically; refused if a file changed meanwhile)")
    f.add_argument("--remove-redundant", action="store_true",
                   help="also remove syncs the checker proves redundant (AG601-AG603)")
    f.add_argument("--explain", action="store_true",
                   help="print each fix's edits and its minimality proof on stderr")
    f.add_argument("--strict", action="append", choices=STRICT_READINGS,
                   help="repair the findings of these opt-in strict readings too (see `check --strict`)")
    f.add_argument("--max-steps", type=int, default=2_000_000,
                   help="statement instances the concrete engine may execute per kernel")
    f.add_argument("--timeout", type=float, default=FIX_SECONDS, metavar="SECONDS",
                   help=f"stop searching a file's repair after SECONDS and leave it as it is "
                        f"(default {FIX_SECONDS:g}; 0: no limit); the check running then finishes")
    f.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                   help="search repairs in N worker processes (0: one per CPU)")
    f.add_argument("--executor", metavar="URL",
                   help="search repairs on an executor instead: dask://HOST:PORT (asyncguard[dask])")
    f.set_defaults(fn=cmd_fix)


def repair_unit(text: str, path: str, limits, remove_redundant: bool, seconds: float | None = None):
    """The unit of work (any executor): (Repair, the text to write)."""
    rep = repair_text(text, path, limits, seconds=seconds)
    new = rep.new_text if rep.status == "fixed" else text
    if remove_redundant and rep.status not in ("error", "unrepairable", "timeout"):
        from .redundant import remove_redundant as remove
        new, _ = remove(new, path, limits)
    return rep, new


def _repairs(inputs, limits, args, executor):
    """(Repair, new text) per input, in order: here, in --jobs processes, or on the executor."""
    jobs = getattr(args, "jobs", 1)
    if executor is None and (jobs == 1 or len(inputs) <= 1):
        for p, _, text in inputs:
            yield repair_unit(text, p, limits, args.remove_redundant, args.timeout)
        return
    from concurrent.futures import ProcessPoolExecutor
    import os
    own = executor is None
    pool = ProcessPoolExecutor(max_workers=min(jobs or os.cpu_count() or 1, len(inputs))) if own else executor
    try:
        futs = [pool.submit(repair_unit, text, p, limits, args.remove_redundant, args.timeout)
                for p, _, text in inputs]
        for fut in futs:
            yield fut.result()
    finally:
        if own:
            pool.shutdown()


def cmd_fix(args) -> int:
    from ..executors import ExecutorError, open_executor
    limits = Limits(max_steps=args.max_steps, strict=tuple(args.strict or ()))
    rc = 0
    inputs = []
    for path in collect(args.files):
        p = str(path)
        if is_python(p):   # the repair is an edit of TIR: fix what `check --emit-tir` wrote
            if p in args.files:
                print(f"{p}:1:1: error: fix edits TIR files; lower the module's kernels with "
                      f"`asyncguard check {p} --emit-tir DIR`, then fix DIR", file=sys.stderr)
                rc = 2
            continue
        try:
            raw = path.read_bytes()
            text = read(path)
        except (InputError, OSError) as e:
            print(str(e) if isinstance(e, InputError) else f"{p}:1:1: error: {e}", file=sys.stderr)
            rc = 2
            continue
        inputs.append((p, raw, text))
    try:
        with open_executor(getattr(args, "executor", None)) as executor:
            return max(rc, _apply(inputs, _repairs(inputs, limits, args, executor), args))
    except ExecutorError as e:
        print(str(e), file=sys.stderr)
        return 2


def _apply(inputs, repairs, args) -> int:
    rc = 0
    for (p, raw, text), (rep, new) in zip(inputs, repairs):
        if rep.status == "error":
            print(rep.message, file=sys.stderr)
            rc = 2
            continue
        if rep.status in ("unrepairable", "timeout"):
            print(f"{p}: {rep.message}", file=sys.stderr)
            for f in rep.remaining:
                print(f"  {p}:{f.line}:{f.col}: {f.rule.code} {f.message}", file=sys.stderr)
            rc = max(rc, 1)
            continue
        if new == text:
            continue
        rc = max(rc, 1)
        if args.explain and rep.fix is not None:
            print(f"{p}: {rep.fix.safety} fix, {rep.fix.inserted} inserted, {rep.fix.changed} changed "
                  f"({rep.checks} checker runs)", file=sys.stderr)
            for kind, what, codes in rep.fix.proof:
                print(f"  {kind} {what}: {', '.join(codes) or 'NOTHING (not minimal)'} comes back",
                      file=sys.stderr)
        if args.write:
            try:
                atomic_write(p, new, digest(raw))
            except FileChanged as e:
                print(f"asyncguard: {e}", file=sys.stderr)
                rc = 2
                continue
            print(f"asyncguard: fixed {p}", file=sys.stderr)
        else:
            sys.stdout.write(unified_diff(p, text, new))
    return rc
