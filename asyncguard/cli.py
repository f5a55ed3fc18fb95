"""`asyncguard check FILE...` and friends. Exit 0 clean, 1 findings, 2 usage or input error."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import __version__
from .analyze import Limits, check_text
from .diagnostics import RULES
from .parse import InputError
from .report import render_json, render_text


def _collect(paths: list[str]) -> list[Path]:
    out = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            out.extend(sorted(path.rglob("*.tir")))
        else:
            out.append(path)
    return out


def _read(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror or e}", 1, 1, str(path)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        text = data[: e.start].decode("utf-8", "replace")
        line = text.count("\n") + 1
        col = e.start - (text.rfind("\n") + 1) + 1
        raise InputError("not UTF-8 text (binary file?)", line, col, str(path)) from None


def cmd_check(args) -> int:
    limits = Limits(max_steps=args.max_steps)
    reports, errors, sources = [], [], {}
    for path in _collect(args.files):
        try:
            text = _read(path)
            sources[str(path)] = text.splitlines()
            reports.append(check_text(text, str(path), limits))
        except InputError as e:
            e.path = str(path)
            errors.append(e)
    if args.format == "json":
        print(render_json(reports, errors))
    else:
        for e in errors:
            print(str(e), file=sys.stderr)
        if reports:
            print(render_text(reports, sources))
    if errors:
        return 2
    return 1 if any(r.findings for r in reports) else 0


def cmd_rules(args) -> int:
    for r in RULES.values():
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


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="asyncguard", description=__doc__)
    ap.add_argument("--version", action="version", version=f"asyncguard {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="check TIR files for shared-memory synchronization bugs")
    c.add_argument("files", nargs="+", help="TIR files or directories (recursing over *.tir)")
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.add_argument("--max-steps", type=int, default=2_000_000,
                   help="statement instances the concrete engine may execute per kernel")
    c.set_defaults(fn=cmd_check)
    r = sub.add_parser("rules", help="list every rule")
    r.set_defaults(fn=cmd_rules)
    e = sub.add_parser("explain", help="print a rule's documentation")
    e.add_argument("rule")
    e.set_defaults(fn=cmd_explain)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
