"""One value per shared address: whether threads that store to the same shared element in one
statement instance store the same value, where the value differs between threads only through
loaded data (engine/program.py's elaboration asks it of a store whose threads meet).
"""
from __future__ import annotations

from .. import ir
from .exprs import free_names
from .nodes import _UNIFORM_SAFE_CALLS, _UNIFORM_SAFE_PREFIXES, PIf, PLet, PLoop, POp, PStore, _rewrite


# ---------------------------------------------------------------- one value per shared address
def same_value_per_address(el, target: ir.Subscript, value) -> bool:
    """Whether two threads that store `value` to the same shared element in one statement
    instance store the same value, where the value differs between threads only through loaded
    data: `is_kv_valid[tx // 8] = Cast(int8, idx[0] <= q)` with `idx[0] = Indices[.. + tx // 8]`,
    or `A[tx % 128] = q[0] * k[0]` with `k[0] = K_shared[tx % 128] * ...` (two threads per element).
    The value is a pure function of read-only global cells, shared elements, uniform names and
    thread-free lets and registers; expanded through the lets and registers it reads (every definition), each
    leaf's address, each definition's register index, and every branch condition and loop bound
    around the store and the definitions takes one value for two threads whose store addresses
    are equal (z3, thread indices the only names that differ). Then the two threads ran the same
    statement instances (same control), their registers hold what the same definitions wrote,
    from the same cells: one value. Anything else: False."""
    cache = getattr(el, "_same_value_cache", None)
    if cache is None:
        cache = el._same_value_cache = {}
    key = id(target)
    if key not in cache:
        try:
            cache[key] = _same_value_per_address(el, target, value)
        except _NotShown:
            cache[key] = False
    return cache[key]


class _NotShown(Exception):
    pass


def _definition_sites(el) -> dict:
    """('let', name) / ('reg', region) / ('store', id(subscript)) -> [(index, value, guards)],
    guards: the enclosing branch conditions and loop bounds as ir expressions."""
    sites = getattr(el, "_definition_sites", None)
    if sites is not None:
        return sites
    sites = el._definition_sites = {}

    def walk(stmts, guards: tuple) -> None:
        for st in stmts:
            if isinstance(st, PLet):
                sites.setdefault(("let", st.name), []).append((None, st.src, guards))
            elif isinstance(st, PStore):
                sites.setdefault(("reg", st.region), []).append(
                    (st.src[0] if st.src else None, st.src[-1] if st.src else None, guards))
            elif isinstance(st, POp) and st.name == "store" and st.src is not None:
                sites.setdefault(("store", id(st.src)), []).append((None, None, guards))
            elif isinstance(st, PIf):
                g = guards + ((st.src,) if st.src is not None else (None,))
                walk(st.then, g)
                walk(st.other, g)
            elif isinstance(st, PLoop):
                g = guards + tuple(st.src or (None,)) + (ir.Var(st.var),)
                walk(st.body, g)
    walk(getattr(el, "body", ()), ())
    return sites


def _two_threads(el, names: set, address) -> tuple[dict, dict, list]:
    """z3 names for two threads of one statement instance: (the first's, the second's, side
    conditions). Thread indices differ between them (each within its launch extent), every other
    name of `names` is shared (same control: the same loop counters and lets); the side
    conditions include that both threads address the same element through `address`
    (the index expressions). Raises encode's Unencodable."""
    import z3

    from ..prover.encode import encode
    thread_vars = el.launch.thread_vars
    one = {n: z3.Int(n) for n in names}
    two = {n: (z3.Int(n + "%2") if n in thread_vars else v) for n, v in one.items()}
    side = []
    for n, axis in thread_vars.items():
        if n in one:
            extent = el.launch.threads["xyz".index(axis[-1])]
            side += [one[n] >= 0, one[n] < extent, two[n] >= 0, two[n] < extent]
    for a in address:
        x1, s1 = encode(a, one)
        x2, s2 = encode(a, two)
        side += s1 + s2 + [x1 == x2]
    return one, two, side


def threads_meet(el, target: ir.Subscript) -> bool:
    """Whether two different threads may store to the same element through `target` in one
    statement instance (z3 over its index, thread indices the only names that differ); True
    where z3 cannot tell."""
    import z3

    from ..prover.encode import Unencodable
    from ..prover.solve import unsat
    thread_vars = set(el.launch.thread_vars)
    names = set().union(*(free_names(i) for i in target.indices)) if target.indices else set()
    if not names & thread_vars:
        return True   # one element for every thread
    if any(isinstance(i, ir.Slice) for i in target.indices):
        return True
    names |= thread_vars   # (two threads may differ in an index the address does not read)
    try:
        one, two, side = _two_threads(el, names, target.indices)
    except Unencodable:
        return True
    return not unsat(*side, z3.Or(*[one[n] != two[n] for n in thread_vars]))


_REGISTER_SCOPES = ("local", "local.var")   # (engine/program.py REGISTER_SCOPES)
_DECLARATIONS = ("T.alloc_buffer", "T.decl_buffer", "T.Buffer", "T.allocate")


def _text_register_sites(el, region: str) -> list | None:
    """[(index, value, guards)] of every assignment to the register `region` in the kernel's
    text, for a register the engine does not evaluate (a float accumulator, so no PStore holds
    its stores); guards as `_definition_sites` gives them. None (not shown) where the region
    may be written otherwise: a pointer to it (`st.data` outside a declaration, handed to an
    operation), a slice store, or a store inside a while loop."""
    cache = el.__dict__.setdefault("_text_register_cache", {})
    if region in cache:
        return cache[region]

    def mine(e) -> bool:
        view = el.view_of(e)
        return view is not None and view.region is not None and view.region.name == region

    def pointer_in(e) -> bool:
        """The region named other than as the buffer of an element access (`st[0]`)."""
        nodes = list(ir.nodes(e))
        indexed = {id(x.value) for x in nodes if isinstance(x, ir.Subscript)}
        return any(id(x) not in indexed and (isinstance(x, ir.Attr) and x.name == "data" and mine(x.value) or
                                             isinstance(x, ir.Var) and mine(x)) for x in nodes)

    out: list = []

    def walk(stmts, guards: tuple) -> bool:
        for st in stmts:
            if isinstance(st, ir.Assign):
                value = st.value
                if isinstance(value, ir.Call) and value.name in _DECLARATIONS:
                    continue   # (a view of the region declares no write)
                if isinstance(st.target, ir.Subscript) and mine(st.target.value):
                    if any(isinstance(i, ir.Slice) for i in st.target.indices) or len(st.target.indices) != 1:
                        return False
                    out.append((st.target.indices[0], value, guards))
                elif isinstance(st.target, ir.Subscript) and any(pointer_in(i) for i in st.target.indices):
                    return False
                if pointer_in(value):
                    return False
            elif isinstance(st, ir.ExprStmt):
                if pointer_in(st.expr):
                    return False
            elif isinstance(st, ir.If):
                if not (walk(st.then, guards + (st.cond,)) and walk(st.other, guards + (st.cond,))):
                    return False
            elif isinstance(st, ir.For):
                bounds = tuple(a for a in getattr(st.iter, "args", ()) if not isinstance(a, ir.Const))
                if not isinstance(st.iter, ir.Call) or len(st.names) != 1:
                    return False
                if not walk(st.body, guards + bounds + (ir.Var(st.names[0]),)):
                    return False
            elif isinstance(st, ir.With):
                if not walk(st.body, guards):
                    return False
            elif isinstance(st, ir.While):
                # any mention inside (a store, a pointer handed to an operation): not followed
                if any(isinstance(x, ir.Var) and mine(x) for x in ir.nodes(st.body)):
                    return False
        return True
    cache[region] = out if walk(el.func.body, ()) else None
    return cache[region]


def _same_value_per_address(el, target: ir.Subscript, value) -> bool:
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    sites = _definition_sites(el)
    thread_vars = set(el.launch.thread_vars)
    must_agree: list = []   # expressions that must take one value for the two threads
    seen: set = set()

    def leaves(e, depth: int) -> None:
        """Walk a value: collect the addresses of its global loads, expand lets and registers."""
        if depth > 8:
            raise _NotShown()
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, ir.Subscript):
                view = el.view_of(x.value)
                if view is not None and view.name in el.roots:
                    if el.roots[view.name] in el.written_roots:
                        raise _NotShown()
                    must_agree.extend(x.indices)
                    continue
                reg = el.register_of(view)
                if reg is None and view is not None and view.is_shared and \
                        not any(isinstance(i, ir.Slice) for i in x.indices):
                    # a shared element read at one address by both threads: the same statement
                    # instances of two threads lie in one barrier interval, so a write to the
                    # element between their reads would race with one of them (and is reported as
                    # such); with none, both read one value
                    must_agree.extend(x.indices)
                    continue
                if reg is None and view is not None and view.region is not None and \
                        view.region.scope in _REGISTER_SCOPES:
                    # a register the engine does not evaluate (a float accumulator): its
                    # definitions read from the kernel's text (`_text_register_sites`)
                    definition(("text-reg", view.region.name), depth)
                    must_agree.extend(x.indices)
                    continue
                if reg is None:
                    raise _NotShown()   # an opaque buffer: not followed
                definition(("reg", reg[0]), depth)
                must_agree.extend(x.indices)
            elif isinstance(x, ir.Var):
                if x.name in thread_vars:
                    raise _NotShown()   # a thread index in the value itself
                if ("let", x.name) in sites:
                    definition(("let", x.name), depth)
                elif x.name not in el.uniform_names and x.name != "T":
                    raise _NotShown()
            elif isinstance(x, ir.Call):
                if not (x.name in _UNIFORM_SAFE_CALLS or x.name.startswith(_UNIFORM_SAFE_PREFIXES)):
                    raise _NotShown()
                stack.extend(a for a in x.args if not isinstance(a, ir.Const))
            elif isinstance(x, ir.BinOp):
                stack.extend((x.left, x.right))
            elif isinstance(x, ir.UnaryOp):
                stack.append(x.operand)
            elif isinstance(x, ir.Slice):
                raise _NotShown()
            elif not isinstance(x, ir.Const):
                raise _NotShown()

    def definition(k, depth: int) -> None:
        if k in seen:
            return
        seen.add(k)
        defs = sites.get(k) if k[0] != "text-reg" else _text_register_sites(el, k[1])
        if not defs:
            raise _NotShown()
        for index, val, guards in defs:
            if val is None or any(g is None for g in guards):
                raise _NotShown()
            if index is not None:
                must_agree.append(index)
            must_agree.extend(guards)
            leaves(val, depth + 1)

    stores = sites.get(("store", id(target)))
    if not stores:
        raise _NotShown()
    for _, _, guards in stores:
        if any(g is None for g in guards):
            raise _NotShown()
        must_agree.extend(guards)
    leaves(value, 0)
    # z3: the names other than thread indices are shared by the two threads (same control: the
    # same statement instances, so the same loop counters and lets); lets that appear in an
    # address or condition are expanded into their definitions when they have exactly one
    lets = {k[1]: d[0][1] for k, d in sites.items() if k[0] == "let" and len(d) == 1}

    def expand(e):
        for _ in range(16):
            if not free_names(e) & set(lets):
                return e
            e = _rewrite(e, lets)
        raise _NotShown()
    exprs = [expand(e) for e in must_agree]
    address = [expand(i) for i in target.indices]
    names = set().union(*(free_names(e) for e in exprs + address))
    if names - thread_vars - el.uniform_names:
        raise _NotShown()   # a name that may differ between threads other than a thread index
    if not any(free_names(e) & thread_vars for e in exprs):
        return True
    try:
        one, two, side = _two_threads(el, names, address)
        differs = []
        for e in exprs:
            if not free_names(e) & thread_vars:
                continue
            x1, s1 = encode(e, one)
            x2, s2 = encode(e, two)
            side += s1 + s2
            differs.append(x1 != x2)
    except Unencodable:
        return False
    return unsat(*side, z3.Or(*differs))
