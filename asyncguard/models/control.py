"""Control flow spelled as a call: `T.loop_break()` is C's `break`.

TileLang prints it for a persistent loop that ends early (`if w * 27 + bx // 4 == 512:
T.loop_break()`). The executing threads leave the innermost `for` or `while` around the call;
the scheduler does it (engine/machine.py `_loop_break`), since only it knows the loop frames.
A loop that may end this way is never skipped by loop acceleration (engine/accelerate.py).
"""
from __future__ import annotations

from ..events import LoopBreak
from . import NotModelled, op


@op("T.loop_break")
def loop_break(ctx, call):
    if call.args or call.kwargs:
        raise NotModelled(f"{call.name} with arguments")
    return lambda env, tids: [LoopBreak(tids)]
