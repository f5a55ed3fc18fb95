"""Child process: import one user module, find its TileLang kernels, lower each for each arch.

    python -m asyncguard.frontends.tilelang_lower REQUEST.json RESULT.json

REQUEST: {"file": path, "archs": [...], "args": {"factory": [{...}, ...]}, "root": dir}
RESULT:  {"kernels": [{"kernel", "args", "arch", "tir", "error", "def_line", "note"}],
          "error": message or null, "error_line": n}

It runs in its own process because importing a user's module runs arbitrary code (it may hang,
crash the interpreter, or take seconds to import torch): the parent gives it a time limit and
reads only this JSON. Nothing here raises out: every failure becomes a message naming the kernel.
TileLang 0.1.15 keeps no source spans on lowered TIR (checked: every statement's span is None),
so the Python line reported is the kernel's `def` line.
"""
from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import os
import re
import sys
import traceback
from typing import NamedTuple

ARGS_COMMENT = re.compile(r"^\s*#\s*asyncguard:\s*args\((.*)\)\s*$")


def parse_args_comment(text: str) -> dict:
    """`M=1024, N=1024, dtype="float16"` -> {"M": 1024, ...} (literals only: nothing is evaluated)."""
    call = ast.parse(f"f({text})", mode="eval").body
    if call.args:
        raise ValueError("asyncguard: args(...) takes keyword arguments only (NAME=value)")
    return {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}


def comment_arg_sets(lines: list[str], def_line: int) -> list[dict]:
    """`# asyncguard: args(...)` comments directly above a definition (its decorators included),
    one argument set per comment. `def_line` is 1-based (the first decorator's line)."""
    sets, i = [], def_line - 2
    while i >= 0 and lines[i].lstrip().startswith("#"):
        m = ARGS_COMMENT.match(lines[i])
        if m:
            sets.insert(0, parse_args_comment(m.group(1)))
        i -= 1
    return sets


def _top_level_defs(source: str) -> dict[str, tuple[int, int]]:
    """Names defined by a top-level `def` in the module: (first line, decorators included; the
    `def` line)."""
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out[node.name] = (first, node.lineno)
    return out


def _short(err: BaseException) -> str:
    lines = [l for l in str(err).strip().splitlines() if l.strip()]
    return f"{type(err).__name__}: {lines[-1].strip() if lines else ''}".rstrip(": ")


def _where_in(err: BaseException, file: str) -> int:
    """The last traceback line inside the user's file (1 if none)."""
    line = 1
    for fr in traceback.extract_tb(err.__traceback__):
        if os.path.abspath(fr.filename) == os.path.abspath(file):
            line = fr.lineno or line
    if isinstance(err, SyntaxError) and err.lineno:
        line = err.lineno
    return line


class Lowered(NamedTuple):
    """One PrimFunc lowered for one arch."""
    tir: str                               # str(device_mod): the device TIR asyncguard reads
    cuda_source: str | None                # the CUDA C++ TileLang printed; None when its codegen failed
    codegen_error: BaseException | None    # why CUDA codegen failed (the TIR then comes from the step before)


def lower_device(func, arch: str, pass_configs: dict | None = None, lower=None) -> Lowered:
    """Lower `func` for `arch` the way TileLang's compile does, under PassContext(opt_level=3,
    pass_configs): `str(tilelang.lower(func, target).device_mod)`. CUDA codegen can fail after the TIR
    pipeline succeeded; the device module of `lower_to_host_device_ir` (the step that produces
    `device_mod`) is then returned with the codegen error. Raises when the TIR pipeline itself fails.
    `lower` replaces `tilelang.lower` for a caller that has patched that name (corpus/lower_unseen.py
    intercepts tests' own calls to it)."""
    import tilelang
    import tvm
    from tvm.target import Target
    target = Target({"kind": "cuda", "arch": arch})
    with tvm.transform.PassContext(opt_level=3, config=dict(pass_configs or {})), target:
        try:
            artifact = (lower or tilelang.lower)(func, target=target)
            return Lowered(str(artifact.device_mod), artifact.kernel_source, None)
        except Exception as e:  # noqa: BLE001 -- retried below without the CUDA codegen
            from tilelang.backend import create_backend_context
            from tilelang.engine.lower import lower_to_host_device_ir
            ctx = create_backend_context(target, None, "auto")
            _, device_mod, _, _, _ = lower_to_host_device_ir(func, ctx)
            return Lowered(str(device_mod), None, e)


def lower_for(func, arch: str, pass_configs: dict | None):
    """(device TIR text, note): the note says when CUDA codegen failed and the TIR before it is checked."""
    lowered = lower_device(func, arch, pass_configs)
    if lowered.codegen_error is None:
        return lowered.tir, None
    return lowered.tir, f"CUDA codegen failed ({_short(lowered.codegen_error)}); device TIR checked"


def _is_prim_func(obj) -> bool:
    return type(obj).__name__ == "PrimFunc" and hasattr(obj, "body") and hasattr(obj, "params")


def run(req: dict) -> dict:
    file = os.path.abspath(req["file"])
    archs, config_args = req["archs"], req.get("args", {})
    out = {"kernels": [], "error": None, "error_line": 1}
    try:
        source = open(file, encoding="utf-8").read()
        defs = _top_level_defs(source)
    except (OSError, UnicodeDecodeError, SyntaxError) as e:
        out["error"], out["error_line"] = f"cannot read the module: {_short(e)}", getattr(e, "lineno", 1) or 1
        return out
    lines = source.splitlines()
    # The module's own directory first, as `python kernels/gemm.py` would have it; then the
    # project root, so `from kernels.common import ...` works as in the project's own tests.
    for d in (req.get("root"), os.path.dirname(file)):
        if d and d not in sys.path:
            sys.path.insert(0, d)
    name = "asyncguard_user_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(file))[0])
    try:
        spec = importlib.util.spec_from_file_location(name, file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except BaseException as e:  # noqa: BLE001 -- SystemExit too: the user's module is not ours
        out["error"], out["error_line"] = f"importing the module failed: {_short(e)}", _where_in(e, file)
        return out
    try:
        from tilelang.jit import JITImpl
    except Exception:  # noqa: BLE001 -- a TileLang without JITImpl: only prim_funcs are found
        JITImpl = ()
    for attr, (first_line, def_line) in defs.items():
        obj = getattr(module, attr, None)
        if _is_prim_func(obj):
            units = [(obj, None, None)]
        elif JITImpl and isinstance(obj, JITImpl) and _is_prim_func(getattr(obj, "func", None)):
            units = [(obj.func, None, getattr(obj, "pass_configs", None))]   # jit over a prim_func
        elif JITImpl and isinstance(obj, JITImpl):
            sets = config_args.get(attr)
            if sets is None:
                try:
                    sets = comment_arg_sets(lines, first_line)
                except (ValueError, SyntaxError) as e:
                    out["kernels"].append(_failed(attr, None, None, def_line,
                                                  f"bad `# asyncguard: args(...)` comment: {_short(e)}"))
                    continue
            if not sets:
                sets = _defaults_only(obj)
            if not sets:
                out["kernels"].append(_failed(attr, None, None, def_line, (
                    "a @tilelang.jit factory needs an argument set: add `# asyncguard: args(NAME=value, ...)` "
                    f"above it, or `\"{req.get('rel', file)}:{attr}\" = [{{NAME = value, ...}}]` under "
                    "[tool.asyncguard.tilelang] in pyproject.toml")))
                continue
            units = [(obj, s, getattr(obj, "pass_configs", None)) for s in sets]
        else:
            continue
        for target, argset, pass_configs in units:
            try:
                func = target if argset is None else target.get_tir(**argset)
            except BaseException as e:  # noqa: BLE001
                line = _where_in(e, file)
                out["kernels"].append(_failed(attr, argset, None, line if line > 1 else def_line,
                                              f"building the kernel failed: {_short(e)}"))
                continue
            for arch in archs:
                try:
                    tir, note = lower_for(func, arch, pass_configs)
                except BaseException as e:  # noqa: BLE001
                    out["kernels"].append(_failed(attr, argset, arch, def_line,
                                                  f"lowering failed: {_short(e)}"))
                    continue
                out["kernels"].append({"kernel": attr, "args": argset, "arch": arch, "tir": tir,
                                       "error": None, "def_line": def_line, "note": note})
    return out


def _defaults_only(impl) -> list[dict]:
    """A factory whose parameters all have defaults is checked with them (one argument set)."""
    try:
        sig = inspect.signature(impl.func.orig_func)
    except (AttributeError, TypeError, ValueError):
        return []
    if all(p.default is not inspect.Parameter.empty for p in sig.parameters.values()):
        return [{}]
    return []


def _failed(kernel, args, arch, line, message) -> dict:
    return {"kernel": kernel, "args": args, "arch": arch, "tir": None, "error": message,
            "def_line": line, "note": None}


def main(argv: list[str]) -> int:
    req = json.load(open(argv[0], encoding="utf-8"))
    # The user's module may print; our answer goes to a file, never to stdout.
    result = run(req)
    with open(argv[1], "w", encoding="utf-8") as f:
        json.dump(result, f)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)   # skip TileLang's and torch's interpreter teardown: the answer is written


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
