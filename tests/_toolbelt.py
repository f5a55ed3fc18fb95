"""Helpers shared by the toolbelt tests (SARIF, config, suppressions, pre-commit, CLI output)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"

# The store on line 11 races with the load on line 12 (AG201, reported on line 12); line 14 is a
# barrier in a thread-dependent branch (AG301).
WRITE_LINE, READ_LINE, BARRIER_LINE = 11, 12, 14
RACY = """\
# from tvm.script import tirx as T
# neighbour exchange without a barrier, then a barrier in a thread-dependent branch

@T.prim_func
def plain(X: T.handle("float32", "global"), Y: T.handle("float32", "global")):
    T.func_attr({"dyn_shared_memory_buf": 512, "target": T.target({"arch": "sm_80", "kind": "cuda"}), "thread_extent": {"blockIdx.x": 1, "threadIdx.x": 128, "threadIdx.y": 1, "threadIdx.z": 1}})
    X_1 = T.decl_buffer((128,), data=X)
    Y_1 = T.decl_buffer((128,), data=Y)
    tx = T.launch_thread("threadIdx.x", 128)
    S = T.alloc_buffer((128,), scope="shared.dyn")
    S[tx] = X_1[tx]{write}
    Y_1[tx] = S[(tx + 1) % 128]{read}
    if tx < 64:
        T.tvm_storage_sync("shared"){barrier}
"""


def racy(write: str = "", read: str = "", barrier: str = "") -> str:
    """The racy kernel with trailing comments on its store, load and barrier lines."""
    return RACY.replace("{write}", write).replace("{read}", read).replace("{barrier}", barrier)


CLEAN = (CORPUS / "handwritten" / "neighbour_exchange.tir").read_text()


def run(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "asyncguard", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=env)


def codes(doc: dict) -> list[tuple[str, int]]:
    """(rule, line) of every finding in a --format json document."""
    return [(f["rule"], f["line"]) for fi in doc["files"] for f in fi["findings"]]
