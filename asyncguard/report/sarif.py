"""SARIF 2.1.0: one run, every rule's metadata from the registry, the witness as a code flow.

A race witness becomes relatedLocations (the two accesses) and one codeFlow with a threadFlow
per thread involved; `executionOrder` gives the global order of the two accesses. Barrier
witnesses become relatedLocations, one per group of arriving (or missing) threads.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from .. import __version__
from ..diagnostics import RULES
from .rules_doc import help_uri, load_all_rules, sections

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "note": "note"}
SRCROOT = "%SRCROOT%"


def _uri(path: str) -> tuple[str, str | None]:
    """A relative URI under %SRCROOT% (the working directory) when possible, else absolute."""
    p = Path(path)
    try:
        rel = p.resolve().relative_to(Path.cwd().resolve())
        return rel.as_posix(), SRCROOT
    except (ValueError, OSError):
        return p.resolve().as_uri(), None


def _artifact(path: str) -> dict:
    uri, base = _uri(path)
    loc = {"uri": uri}
    if base:
        loc["uriBaseId"] = base
    return loc


def _physical(path: str, line: int, col: int | None, lines: list | None) -> dict:
    region = {"startLine": max(int(line), 1)}
    if col:
        region["startColumn"] = max(int(col), 1)
    if lines and 1 <= line <= len(lines):
        region["snippet"] = {"text": lines[line - 1].rstrip("\r\n")}
    return {"artifactLocation": _artifact(path), "region": region}


def rule_descriptor(r) -> dict:
    sec = sections(r.doc)
    return {
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": sec.get("What it does", r.summary).replace("\n", " ")},
        "help": {"text": f"{r.code} {r.name} ({r.kind}, {r.severity})\n{r.summary}\n\n{r.doc}",
                 "markdown": f"**{r.code} {r.name}** ({r.kind}, {r.severity}): {r.summary}\n\n"
                             + re.sub(r"(?m)^## ", "### ", r.doc)},
        "helpUri": help_uri(r),
        "defaultConfiguration": {"level": LEVEL[r.severity]},
        "properties": {"kind": r.kind, "tags": ["asyncguard", r.kind]},
    }


def _side_text(name: str, a: dict) -> str:
    loops = ", ".join(f"{k}={v}" for k, v in a.get("loops", {}).items())
    el = a.get("elements") or ["?", "?"]
    return (f"{name}: {a.get('op')} ({a.get('access')}) by thread {a.get('thread')}"
            + (f" [{loops}]" if loops else "") + f" on {a.get('buffer')}[{el[0]}:{el[1]}]")


def _witness_parts(f, lines) -> tuple[list, list]:
    w = f.witness or {}
    related, flows = [], []
    if "first" in w and "second" in w:
        a, b = w["first"], w["second"]
        for i, (name, side) in enumerate((("first", a), ("second", b)), 1):
            related.append({"id": i, "message": {"text": _side_text(name, side)},
                            "physicalLocation": _physical(f.path, side["line"], side.get("col"), lines)})
        threads = []
        for order, (name, side) in enumerate((("first", a), ("second", b)), 1):
            tfl = {"location": {"physicalLocation": _physical(f.path, side["line"], side.get("col"), lines),
                                "message": {"text": _side_text(name, side)}},
                   "executionOrder": order,
                   "kinds": ["memory", "write" if "write" in str(side.get("access")) else "read"],
                   "properties": {"loops": side.get("loops", {}), "bytes": side.get("bytes")}}
            t = side.get("thread")
            flow = next((x for x in threads if x["_t"] == t), None)
            if flow is None:
                flow = {"_t": t, "message": {"text": f"thread {t}"}, "locations": []}
                threads.append(flow)
            flow["locations"].append(tfl)
        for flow in threads:
            flow.pop("_t")
        flows.append({"message": {"text": "missing ordering: " + str(w.get("missing", "none"))},
                      "threadFlows": threads})
    elif "arrivals" in w:
        for i, arr in enumerate(w["arrivals"], 1):
            related.append({"id": i, "message": {"text": f"threads {arr['threads']} ({arr['count']}) "
                                                         f"arrive at barrier {w.get('barrier_id')}"},
                            "physicalLocation": _physical(f.path, arr["line"], arr.get("col"), lines)})
        for j, m in enumerate(w.get("missing_at", []), len(related) + 1):
            if m.get("line"):
                related.append({"id": j, "message": {"text": f"threads {m['threads']} are here and "
                                                             "never arrive"},
                                "physicalLocation": _physical(f.path, m["line"], None, lines)})
    return related, flows


def _fingerprint(f, lines) -> str:
    src = lines[f.line - 1].strip() if lines and 1 <= f.line <= len(lines) else ""
    h = hashlib.sha256(f"{f.rule.code}\0{src}\0{f.message}".encode()).hexdigest()
    return h[:32]


def result(f, rule_index: dict, lines: list | None) -> dict:
    res = {"ruleId": f.rule.code, "ruleIndex": rule_index[f.rule.code],
           "level": LEVEL[f.rule.severity], "kind": "fail",
           "message": {"text": f.message},
           "locations": [{"physicalLocation": _physical(f.path, f.line, f.col, lines)}],
           "partialFingerprints": {"asyncguardFinding/v1": _fingerprint(f, lines)},
           "properties": {"kind": f.rule.kind, "witness": f.witness}}
    related, flows = _witness_parts(f, lines)
    if related:
        res["relatedLocations"] = related
    if flows:
        res["codeFlows"] = flows
    return res


def render_sarif(reports, errors=(), sources: dict | None = None) -> str:
    rules = sorted(load_all_rules().values(), key=lambda r: r.code)
    index = {r.code: i for i, r in enumerate(rules)}
    results = [result(f, index, (sources or {}).get(rep.path)) for rep in reports for f in rep.findings]
    notes = [{"level": "error", "message": {"text": e.message},
              "locations": [{"physicalLocation": _physical(e.path, e.line, e.col, None)}]}
             for e in errors]
    run = {
        "tool": {"driver": {"name": "asyncguard", "version": __version__,
                            "semanticVersion": __version__,
                            "informationUri": help_uri(rules[0]).split("#")[0],
                            "rules": [rule_descriptor(r) for r in rules]}},
        "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().resolve().as_uri() + "/"}},
        "invocations": [{"executionSuccessful": not errors,
                         "toolExecutionNotifications": notes}],
        "artifacts": [{"location": _artifact(rep.path)} for rep in reports],
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    return json.dumps({"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}, indent=2)


__all__ = ["render_sarif", "rule_descriptor", "RULES"]
