"""One JSON document for all files checked."""
from __future__ import annotations

import json


def render_json(reports, errors=()) -> str:
    doc = {"version": 1, "files": [
        {"path": r.path, "verdict": r.verdict,
         "kernels": [{"name": k.name, "threads": k.threads, "steps": k.steps,
                      "scope": list(getattr(k, "scope", []))} for k in r.kernels],
         "findings": [f.as_dict() for f in r.findings]} for r in reports],
        "errors": [{"path": e.path, "line": e.line, "col": e.col, "message": e.message} for e in errors]}
    return json.dumps(doc, indent=2)
