"""What every corpus lowering script does with a kernel once it has a PrimFunc: lower it for an arch and
record the result (lower_field, lower_unseen, lower_kernels, lower_cluster, dynamic/lower_dynamic,
handwritten/lower_tilelang_cases).

The lowering itself is asyncguard's (`asyncguard.frontends.tilelang_lower.lower_device`: the device TIR of
`tilelang.lower` under PassContext(opt_level=3, pass configs), or, when CUDA codegen failed after the TIR
pipeline succeeded, the device module of `lower_to_host_device_ir`, "tir-only"), so the corpora hold
exactly what `asyncguard check kernel.py` would check. Recording: a child process's kernel event
(`lower_and_record`), and the corpus directory that keeps byte-identical TIR once (`keep_distinct`).
"""
import hashlib
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:  # the scripts run as `python corpus/X.py`: asyncguard is the checkout's
    sys.path.insert(0, ROOT)

from asyncguard.frontends.tilelang_lower import Lowered, lower_device  # noqa: E402

__all__ = ["MIRROR", "COMMIT", "Lowered", "lower_device", "lower_and_record", "keep_distinct", "last_line",
           "sha256_text", "write_text", "scratch_dir", "extract_from_mirror", "show_from_mirror"]

# The TileLang sources the corpora come from: the mirror of tile-ai/tilelang at one commit.
MIRROR = "/work/.mirror/tile-ai+tilelang/repo"
COMMIT = "a35008a42531c62b976ae4cec3855d4383db0f3c"


def last_line(e: BaseException) -> str:
    """The last non-empty line of an exception's message (TVM's are long C++ traces), at most 300 chars."""
    lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
    msg = lines[-1] if lines else type(e).__name__
    return msg[:300]


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def write_text(path: str, text: str, overwrite: bool = True) -> None:
    """Write `text` to `path` unless the file already holds it (or exists at all, with overwrite False)."""
    if os.path.exists(path) and (not overwrite or open(path).read() == text):
        return
    with open(path, "w") as f:
        f.write(text)


def lower_and_record(func, arch: str, pass_configs, tir_path: str, rec: dict, lower=None) -> Lowered | None:
    """Lower `func` for `arch` and fill the kernel event `rec`: status ok / tir-only (with why: the
    codegen error) / fail (why: the pipeline's error), seconds, and file (where the TIR was written).
    Returns the lowering, or None when it failed. Never raises an Exception: a kernel TileLang refuses
    is a record."""
    t0 = time.time()
    lowered = None
    try:
        lowered = lower_device(func, arch, pass_configs, lower=lower)
    except Exception as e:  # noqa: BLE001
        rec["status"], rec["why"] = "fail", last_line(e)
    else:
        if lowered.codegen_error is None:
            rec["status"] = "ok"
        else:
            rec["status"], rec["why"] = "tir-only", "CUDA codegen failed: " + last_line(lowered.codegen_error)
    rec["seconds"] = round(time.time() - t0, 2)
    if lowered is not None:
        with open(tir_path, "w") as fh:
            fh.write(lowered.tir)
        rec["file"] = tir_path
    return lowered


def keep_distinct(kernels, out: str, remove_stale: bool) -> set:
    """Copy lowered TIR into the corpus directory `out`, byte-identical TIR once.

    `kernels`: (base name, record) pairs in a stable order, one per lowered kernel; a record holds `file`
    (the child's TIR) and, once read, `sha`. The first record of a text gets `name` (its base name, or
    base_2, base_3, ... when an earlier, different text took it); the later ones get `duplicate_of` that
    name. A child's file is copied only while it still holds the text its record hashed (a later run in the
    same temporary directory may have rewritten it). With remove_stale, .tir files of `out` that no record
    keeps are deleted. Returns the kept names."""
    by_sha, names = {}, {}
    for base, k in kernels:
        if "sha" not in k:
            if not os.path.exists(k["file"]):
                continue
            text = open(k["file"]).read()
            k["sha"] = sha256_text(text)
        if k["sha"] in by_sha:
            k["name"], k["duplicate_of"] = None, by_sha[k["sha"]]
            continue
        name, i = base, 2
        while name in names and names[name] != k["sha"]:
            name, i = f"{base}_{i}", i + 1
        names[name] = by_sha[k["sha"]] = k["name"] = name
        k.pop("duplicate_of", None)
        if os.path.exists(k["file"]):
            text = open(k["file"]).read()
            if sha256_text(text) == k["sha"]:
                write_text(os.path.join(out, name + ".tir"), text)
    keep = set(by_sha.values())
    if remove_stale:
        for f in os.listdir(out):
            if f.endswith(".tir") and f[:-4] not in keep:
                os.remove(os.path.join(out, f))
    return keep


def scratch_dir(kind: str, out: str) -> str:
    """The children's temporary directory for a corpus directory `out`: one per checkout, so two checkouts
    lowering at once (or a run and a test) do not clear or overwrite each other's kernels."""
    return os.path.join("/tmp", f"{kind}-lower-{sha256_text(os.path.abspath(out))[:10]}")


def extract_from_mirror(part: str, parent: str) -> str:
    """`git archive` the mirror's `part` (a top-level directory: examples, testing) at COMMIT into parent;
    returns parent/part."""
    os.makedirs(parent, exist_ok=True)
    subprocess.run(f"git -C {MIRROR} archive {COMMIT} {part} | tar -x -C {parent}", shell=True, check=True)
    return os.path.join(parent, part)


def show_from_mirror(path: str) -> str:
    """One file of the mirror at COMMIT."""
    return subprocess.run(["git", "-C", MIRROR, "show", f"{COMMIT}:{path}"], check=True, capture_output=True,
                          text=True).stdout
