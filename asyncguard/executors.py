"""`--executor URL`: where the runner's units of work run, as a `concurrent.futures.Executor`.

    dask://HOST:PORT   a Dask distributed scheduler (`Client(...).get_executor()`); the workers
                       need asyncguard (and TileLang, for .py kernels) installed, and, for .py
                       kernels, the checkout at the same path (they import the modules)

Any other `concurrent.futures.Executor` can be passed to `runner.check_paths` from Python.
"""
from __future__ import annotations

from contextlib import contextmanager
from urllib.parse import urlsplit


class ExecutorError(Exception):
    """A bad --executor URL, a missing client library, or a scheduler that cannot be reached."""

    def __str__(self) -> str:
        return f"asyncguard: error: {self.args[0]}"


@contextmanager
def open_executor(url: str | None, connect_timeout: float = 30):
    """Yields an Executor for `url` (None for no URL: the runner's own process pool), and
    closes the connection afterwards."""
    if not url:
        yield None
        return
    parts = urlsplit(url)
    if parts.scheme != "dask" or not parts.hostname or not parts.port:
        raise ExecutorError(f"--executor {url!r}: expected dask://HOST:PORT")
    try:
        from distributed import Client
    except ImportError:
        raise ExecutorError(f"--executor {url}: needs Dask distributed: "
                            "pip install 'asyncguard[dask]'") from None
    try:
        client = Client(f"tcp://{parts.hostname}:{parts.port}", timeout=connect_timeout)
    except (OSError, TimeoutError) as e:
        raise ExecutorError(f"--executor {url}: cannot reach the Dask scheduler: {e}") from None
    try:
        yield client.get_executor()
    finally:
        client.close()
