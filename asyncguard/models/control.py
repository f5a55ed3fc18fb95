"""Control flow spelled as a call: `T.loop_break()` (TileLang's `tl.loop_break`) and
`T.break_loop()` (TVM's `tirx.break_loop` builtin) are C's `break`: TileLang's CUDA codegen
prints "break;" for the first (`codegen_cuda.cc`), TVM's C codegen for the second, and TileLang's
own passes treat the two alike (`codegen_cutedsl.cc` `LoopBreakDetector`: "either
tl::loop_break() or builtin::break_loop()"; TileLang a35008a4).

TileLang prints it for a persistent loop that ends early (`if w * 27 + bx // 4 == 512:
T.loop_break()`). The executing threads leave the innermost `for` or `while` around the call;
the scheduler does it (engine/machine.py `_loop_break`), since only it knows the loop frames.
A loop that may end this way is never skipped by loop acceleration (engine/accelerate.py).

`T.thread_return()` (TileLang's `tl.thread_return`, printed `return;`) ends the executing threads.
Modelled where every live thread of the CTA runs it together (a whole block leaving early,
`if num_expand_tokens <= bx: T.thread_return()`: deepseek-ai/TileKernels); where some threads of a
CTA leave while others go on to its barriers, what those barriers then count is not modelled
(the CUDA guide: `__syncthreads()` in conditional code only where the condition is the same in
the whole block), and the run stops there (`unknown`).
"""
from __future__ import annotations

from ..events import LoopBreak, ThreadReturn
from . import NotModelled, op


@op("T.loop_break", "T.break_loop")
def loop_break(ctx, call):
    if call.args or call.kwargs:
        raise NotModelled(f"{call.name} with arguments")
    return lambda env, tids: [LoopBreak(tids)]


@op("T.thread_return")
def thread_return(ctx, call):
    if call.args or call.kwargs:
        raise NotModelled(f"{call.name} with arguments")
    return lambda env, tids: [ThreadReturn(tids)]
