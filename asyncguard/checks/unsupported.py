"""What the models did not understand: never silently clean."""
from __future__ import annotations

from ..diagnostics import Finding, rule
from ..engine.machine import RunResult

UNSUPPORTED = rule("AG001", "unsupported-construct", "unsupported", "warning",
                   "a construct that may touch shared memory or synchronization is not modelled", """
## What it does
Reports an operation, loop or branch whose effect on shared memory, threads or barriers the
models cannot determine: an unknown builtin, an extern call that may synchronize internally, a
branch on data loaded from memory, a symbolic trip count.

## Why is this bad?
A verifier that skipped it could call a racy kernel clean. The kernel's verdict becomes
`unknown` instead, with this finding saying why.

## Example
```python
T.some_new_builtin(T.tvm_access_ptr(T.type_annotation("float16"), A_shared, 0, 64, 3))
```

## Use instead
Model the operation in `asyncguard/models/`, or rewrite the kernel with operations that are.

## Witness
The construct's line and the reason it is not understood.
""")

ENGINE_LIMIT = rule("AG002", "engine-limit", "unsupported", "warning",
                    "the kernel is too large for the concrete engine", """
## What it does
Reports that the concrete engine stopped before the end of the kernel: too many threads or
statement instances for the configured limits.

## Why is this bad?
Nothing after the stopping point was checked, so the verdict is `unknown`.

## Example
```python
for k in T.serial(1000000000):
    ...
```

## Use instead
Check a launch with fewer iterations, raise `--max-steps`, or prove the loop with the symbolic
engine.

## Witness
The limit and the count reached.
""")


def check(result: RunResult, path: str) -> list[Finding]:
    out = [Finding(UNSUPPORTED, n.span.line, n.span.col, f"not modelled: {n.reason}",
                   {"reason": n.reason}, path) for n in result.notes]
    if result.limit_hit:
        out.append(Finding(ENGINE_LIMIT, 1, 1, result.limit_hit,
                           {"reason": result.limit_hit, "steps": result.steps}, path))
    return out + check_internal(result, path)


INTERNAL_ERROR = rule("AG003", "internal-error", "unsupported", "warning",
                      "the engine failed on this kernel; nothing after the failure was checked", """
## What it does
Reports that a model or the engine raised an unexpected error while executing the kernel.

## Why is this bad?
The kernel was not fully checked, so its verdict is `unknown`. Please report it with the file.

## Example
```python
# any input that triggers a bug in asyncguard
```

## Use instead
Nothing to change in the kernel; the finding carries the error message for the bug report.

## Witness
The error type and message.
""")


def check_internal(result: RunResult, path: str) -> list[Finding]:
    if not result.internal_error:
        return []
    return [Finding(INTERNAL_ERROR, 1, 1, f"internal error: {result.internal_error}",
                    {"error": result.internal_error}, path)]
