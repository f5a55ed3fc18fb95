"""The symbolic prover: z3 behind one small API. Verdicts are three-valued (proved, refuted with
a model, unknown with a reason); a deterministic resource limit (rlimit), never wall-clock alone,
bounds every query, and `unknown` is never treated as safe.

`encode` (exact TIR -> z3 terms), `periodic` (equal-under-shift proofs), `sizes` (symbolic
kernel parameters). Nothing here is imported until a proof is needed: z3 takes time to load.
"""
from __future__ import annotations

import functools
import threading

# z3's Python API builds terms in one process-wide context (only the queries run in contexts of
# their own: solve.py), and a z3 context is not thread-safe; z3 calls release the GIL, so two
# threads could enter it at once. The entry points that build terms (a check, a repair, the
# gate's preparation of a file) take this lock: checks in threads of one process (a Dask
# worker's threads, a caller's thread pool) run one at a time. Their Python work is serialized
# by the GIL already, so little is lost. Re-entrant: a repair runs checks.
_Z3_WORK = threading.RLock()


def one_thread_at_a_time(fn):
    """`fn` holds the process's z3 lock while it runs."""
    @functools.wraps(fn)
    def holding_the_lock(*args, **kwargs):
        with _Z3_WORK:
            return fn(*args, **kwargs)
    return holding_the_lock
