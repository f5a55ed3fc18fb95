"""Atomic rewrite: a temporary file in the same directory, fsync, then os.replace; refused when
the file changed since it was read."""
from __future__ import annotations

import hashlib
import os
import stat
import tempfile


class FileChanged(Exception):
    pass


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def atomic_write(path: str, new_text: str, read_digest: str, _before_replace=None) -> None:
    """Replace `path` by `new_text` (UTF-8) atomically, unless its bytes no longer hash to
    `read_digest` (someone edited it since it was read): then FileChanged and nothing written."""
    path = os.fspath(path)
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".asyncguard-tmp", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(new_text.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        try:
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        except OSError:
            pass
        if _before_replace is not None:
            _before_replace(tmp)
        with open(path, "rb") as f:
            if digest(f.read()) != read_digest:
                raise FileChanged(f"{path}: changed since it was read; not rewritten")
        os.replace(tmp, path)
        tmp = None
        try:
            dfd = os.open(d, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:
            pass
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
