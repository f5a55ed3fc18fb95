"""`asyncguard fix FILE...`: print the minimal repair as a unified diff; `--write` applies it.

Exit codes as `check`: 0 nothing to fix, 1 findings (fixed or not), 2 input errors.
"""
from __future__ import annotations

import sys

from ..analyze import Limits
from ..parse import InputError
from ..runner import collect, read
from .edits import unified_diff
from .search import repair_text
from .write import FileChanged, atomic_write, digest


def add_fix_parser(sub) -> None:
    f = sub.add_parser("fix", help="repair synchronization bugs with the fewest syncs (unified diff)")
    f.add_argument("files", nargs="+", help="TIR files or directories (recursing over *.tir)")
    f.add_argument("--write", action="store_true",
                   help="rewrite the files in place (atomically; refused if a file changed meanwhile)")
    f.add_argument("--remove-redundant", action="store_true",
                   help="also remove syncs the checker proves redundant (AG601-AG603)")
    f.add_argument("--explain", action="store_true",
                   help="print each fix's edits and its minimality proof on stderr")
    f.add_argument("--max-steps", type=int, default=2_000_000,
                   help="statement instances the concrete engine may execute per kernel")
    f.set_defaults(fn=cmd_fix)


def cmd_fix(args) -> int:
    limits = Limits(max_steps=args.max_steps)
    rc = 0
    for path in collect(args.files):
        p = str(path)
        try:
            raw = path.read_bytes()
            text = read(path)
        except (InputError, OSError) as e:
            print(str(e) if isinstance(e, InputError) else f"{p}:1:1: error: {e}", file=sys.stderr)
            rc = 2
            continue
        rep = repair_text(text, p, limits)
        if rep.status == "error":
            print(rep.message, file=sys.stderr)
            rc = 2
            continue
        if rep.status == "unrepairable":
            print(f"{p}: {rep.message}", file=sys.stderr)
            for f in rep.remaining:
                print(f"  {p}:{f.line}:{f.col}: {f.rule.code} {f.message}", file=sys.stderr)
            rc = max(rc, 1)
            continue
        new = rep.new_text if rep.status == "fixed" else text
        if args.remove_redundant:
            from .redundant import remove_redundant
            new, _ = remove_redundant(new, p, limits)
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
