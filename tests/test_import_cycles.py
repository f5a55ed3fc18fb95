"""The package's import graph has no cycles (the layering grammar -> parse -> models -> engine ->
checks -> repair -> emit -> report -> cli, read from the source, function-level imports included).

One pattern is not a cycle here: a package's `__init__` importing its own submodules so that
they register themselves (`asyncguard.models` imports its feature modules, which import `op`
from it). Importing any submodule runs its package's `__init__` first in any case, so that
edge adds no order the interpreter does not already impose.
"""
import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "asyncguard"


def _modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        parts = list(p.relative_to(PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def _imports(name: str, path: Path, modules: dict) -> set[str]:
    is_pkg = path.name == "__init__.py"
    deps = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in modules else mod for a in node.names]
        for t in targets:
            while t not in modules and "." in t:
                t = t.rsplit(".", 1)[0]
            if t in modules and t != name:
                if is_pkg and t.startswith(name + "."):   # registration: see the docstring
                    continue
                deps.add(t)
    return deps


def _cycles(graph: dict[str, set]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1; stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1; stack.append(w); on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_package_has_no_import_cycles():
    modules = _modules()
    graph = {m: _imports(m, p, modules) for m, p in modules.items()}
    assert len(graph) > 40                      # the walk found the package
    assert "asyncguard.repair.search" in graph["asyncguard.repair.redundant"]
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
