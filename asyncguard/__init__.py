"""asyncguard: static verification of asynchronous shared-memory synchronization in GPU kernels.

`asyncguard.check(...)` returns a Report (see `asyncguard.api`); `asyncguard.testing` has
`assert_race_free` for pytest. Both are imported on first use, so `import asyncguard` stays cheap.
"""
__version__ = "0.1.0"

from .heap import keep_heap_top as _keep_heap_top  # noqa: E402 -- first, before anything allocates

_keep_heap_top()

__all__ = ["check", "Report", "Finding", "__version__"]


def __getattr__(name):
    if name in ("check", "Report", "Finding", "InputProblem"):
        from . import api
        return getattr(api, name)
    raise AttributeError(f"module 'asyncguard' has no attribute {name!r}")
