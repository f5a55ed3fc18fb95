"""`T.call_extern` into TileLang's device templates.

`tl::AllReduce<Op, threads, scale, offset, Barrier>::run(x)` with `threads <= 32` reduces with
warp shuffles only (no shared memory, no barrier). Wider reductions take a shared workspace and
synchronize inside the template: not modelled yet, so they are `unsupported`.
"""
from __future__ import annotations

import re

from . import NotModelled

_ALLREDUCE = re.compile(r"tl::AllReduce<\s*[\w:]+\s*,\s*(\d+)\s*,")


def extern_effect(ctx, call):
    """None when the extern call has no shared/sync effect; raises NotModelled otherwise."""
    if len(call.args) < 2:
        raise NotModelled("T.call_extern without a function name")
    name = ctx.literal(call.args[1])
    if not isinstance(name, str):
        raise NotModelled("T.call_extern with a computed function name")
    m = _ALLREDUCE.match(name)
    if m and int(m.group(1)) <= 32 and len(call.args) == 3:
        return None
    raise NotModelled(f"extern call {name} (may use shared memory or barriers internally)")
