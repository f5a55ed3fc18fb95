"""Lower TileLang's own examples for sm_90a with user pass configs flipped that change how synchronization is
lowered: the held-out probe corpus/unseen_passcfg/.

Usage (one job, niced: the machine is shared):
    nice -n 15 python corpus/lower_passcfg.py [--only SUBSTR ...] [--timeout 240] [--resume] [--budget-s 3600]

Everything but the pass configs is corpus/lower_field.py's machinery (its docstring says how an example is run
on a CPU and its kernels intercepted and lowered): each example file that lower_field lowers for sm_90a
(Hopper-only and generic examples; sm_100a / sm_120 / AMD ones are skipped) runs once, and every kernel it
compiles is lowered for sm_90a three times, with the example's own pass_configs plus an override merged on
top (the override wins):
    nows        {"tl.disable_warp_specialized": True}
    notma       {"tl.disable_tma_lower": True}
    nows_notma  both
`--configs` picks other overrides of CONFIGS (corpus/unseen_passcfg2: merge, noelect, nounswitch, nowgmma,
asynccopy) and `--arch` another target; each run of an example file is then its own record of lowering.json,
keyed `path [arch: configs]`, so that `--resume` runs with other configs add to one folder.
Kept: a kernel whose TIR is not byte-identical to any .tir already under corpus/ (any folder but this one's
output) nor to another kept one. Names: <exampledir>__<file-stem>__<kernel>__sm_90a__<config>.tir.
Output: those .tir files, lowering.json (every record), MANIFEST.md.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lower_field as lf  # noqa: E402
from lowering import COMMIT, keep_distinct, scratch_dir, sha256_text  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ARCH = "sm_90a"
CONFIGS = {
    "nows": {"tl.disable_warp_specialized": True},
    "notma": {"tl.disable_tma_lower": True},
    "nows_notma": {"tl.disable_warp_specialized": True, "tl.disable_tma_lower": True},
    # corpus/unseen_passcfg2 (`--configs merge noelect nounswitch`): shared buffers merged across
    # disjoint lifetimes, elected threads by threadIdx instead of elect.sync, loops not unswitched
    "merge": {"tl.enable_aggressive_shared_memory_merge": True},
    "noelect": {"tl.disable_shuffle_elect": True},
    "nounswitch": {"tl.disable_loop_unswitching": True},
    # ... and `--configs nowgmma asynccopy`: Hopper GEMMs through mma.sync, copies through cp.async
    "nowgmma": {"tl.disable_wgmma": True},
    "asynccopy": {"tl.enable_async_copy": True},
}
DEFAULT_CONFIGS = ("nows", "notma", "nows_notma")


def _merged(pass_configs, cfg):
    out = {}
    for k, v in (pass_configs or {}).items():
        out[getattr(k, "value", k)] = v
    out.update(cfg)
    return out


# ------------------------------------------------------------------------------------------------
# Child
# ------------------------------------------------------------------------------------------------


def child(args):
    pseudo = args.archs.split(",")
    real = pseudo[0].split("__")[0]
    lf.TENSOR_DEVICE = args.device
    os.makedirs(args.tmp, exist_ok=True)
    results = open(os.path.join(args.tmp, "results.jsonl"), "a", buffering=1)
    lf._install_stubs(real)
    from tvm.target import Target
    import tilelang.cache  # noqa: F401
    import tilelang.jit.kernel  # noqa: F401

    orig = lf.lower_and_record

    def lower_and_record(func, arch, pass_configs, tir_path, rec, lower=None):
        base, _, cfg = arch.partition("__")
        merged = _merged(pass_configs, CONFIGS[cfg])
        rec["config"], rec["example_pass_configs"] = cfg, rec.get("pass_configs")
        rec["pass_configs"] = {str(k): str(v) for k, v in merged.items()}
        return orig(func, base, merged, tir_path, rec, lower=lower)

    lf.lower_and_record = lower_and_record
    lf.InterceptedLowering(pseudo, args.tmp, results).install()
    path = lf.enter_example(args.child)
    sys.argv = [path]
    src = open(path).read()
    import runpy

    def run():
        with Target({"kind": "cuda", "arch": real}):
            g = runpy.run_path(path, run_name="__main__")
            if "__main__" not in src and callable(g.get("main")):
                g["main"]()
    outcome, why = lf.run_example(run, results)
    results.write(json.dumps({"event": "end", "outcome": outcome, "why": why}) + "\n")
    results.close()
    sys.stdout.flush()
    os._exit(0)


# ------------------------------------------------------------------------------------------------
# Parent
# ------------------------------------------------------------------------------------------------


_field_child = lf.run_child   # main() puts run_child below in its place


def run_child(rel, archs, examples, tmproot, timeout, device, script=None):
    """lower_field.run_child, with this script as the child."""
    return _field_child(rel, archs, examples, tmproot, timeout, device, script=__file__)


def corpus_shas(out):
    """sha256 of every .tir under corpus/ outside `out`."""
    shas = {}
    out = os.path.abspath(out)
    for root, dirs, files in os.walk(HERE):
        # found-bugs/ holds copies of kernels of the other corpora: the corpus a copy came from keeps it
        if os.path.abspath(root).startswith(out) or os.path.basename(root) == "found-bugs":
            continue
        for f in files:
            if f.endswith(".tir"):
                p = os.path.join(root, f)
                shas.setdefault(sha256_text(open(p, errors="surrogateescape").read()), os.path.relpath(p, HERE))
    return shas


def run_key(rel, args) -> str:
    """The record of one example file's run in lowering.json: its path, and past the default target and
    configs the ones it ran with (a folder may hold several runs of one file)."""
    if args.arch == ARCH and list(args.configs) == list(DEFAULT_CONFIGS):
        return rel
    return f"{rel} [{args.arch}: {' '.join(args.configs)}]"


def write_outputs(state, out, existing, remove_stale):
    kernels = []
    for key in sorted(state["files"]):
        rel = key.split(" [")[0]
        d = rel.split("/")[0] if "/" in rel else "_top"
        stem = os.path.splitext(os.path.basename(rel))[0]
        for k in state["files"][key]["kernels"]:
            if k["status"] == "fail" or not k.get("file"):
                continue
            if "sha" not in k:
                if not os.path.exists(k["file"]):
                    continue
                k["sha"] = sha256_text(open(k["file"]).read())
            if k["sha"] in existing:
                k["name"], k["in_corpus"] = None, existing[k["sha"]]
                continue
            kernels.append(("__".join(lf.sanitize(x) for x in (d, stem, k["kernel"] or "main", k["arch"])), k))
    keep_distinct(kernels, out, remove_stale=remove_stale)


def write_manifest(state, out, budget_note):
    files = state["files"]
    zero = {"ok": 0, "tir-only": 0, "fail": 0, "in_corpus": 0, "dup": 0, "kept": 0}
    per = {c: dict(zero) for c in state.get("configs", DEFAULT_CONFIGS)}
    for r in files.values():
        for k in r["kernels"]:
            c = per.setdefault(k.get("config") or k["arch"].partition("__")[2], dict(zero))
            c[k["status"]] += 1
            if k.get("name"):
                c["kept"] += 1
            elif k.get("in_corpus"):
                c["in_corpus"] += 1
            elif k.get("duplicate_of"):
                c["dup"] += 1
    lines = [f"# {os.path.basename(os.path.abspath(out))}: TileLang's examples lowered with pass configs "
             "flipped", "",
             f"Source: TileLang `examples/` at commit `{COMMIT}`; tilelang {lf._tl_version()}; "
             "`corpus/lower_passcfg.py` (its docstring says how).", "", budget_note, "",
             "| config | lowered ok | tir-only | failed | identical to a corpus/ file | identical to another "
             "config here | kept |", "|---|---|---|---|---|---|---|"]
    for c, v in per.items():
        lines.append(f"| {c} | {v['ok']} | {v['tir-only']} | {v['fail']} | {v['in_corpus']} | {v['dup']} | "
                     f"{v['kept']} |")
    lines += ["", "| example | outcome | kernels (config: status, kept name / = duplicate) |", "|---|---|---|"]
    for rel in sorted(files):
        r = files[rel]
        if r.get("skip"):
            continue
        ks = []
        for k in r["kernels"]:
            tag = k.get("name") or (f"= corpus/{k['in_corpus']}" if k.get("in_corpus") else
                                    f"= {k.get('duplicate_of')}" if k.get("duplicate_of") else "")
            note = f" ({k.get('why', '')[:90]})" if k["status"] != "ok" else ""
            ks.append(f"{k['kernel']}@{k['arch']}: {k['status']}{note} {tag}".strip())
        lines.append(f"| `{rel}` | {r['outcome']} ({r['wall_s']}s) | "
                     + "<br>".join(x.replace("|", "\\|") for x in ks) + " | ")
    with open(os.path.join(out, "MANIFEST.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", default=lf.DEFAULT_EXAMPLES)
    ap.add_argument("--out", default=os.path.join(HERE, "unseen_passcfg"))
    ap.add_argument("--arch", default=ARCH, help="the target the examples are lowered for (default sm_90a)")
    ap.add_argument("--configs", nargs="+", choices=sorted(CONFIGS), default=list(DEFAULT_CONFIGS),
                    help="the overrides to lower with (default: nows notma nows_notma)")
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--timeout", type=int, default=240)
    ap.add_argument("--budget-s", type=int, default=3600, help="start no new file after this many seconds")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--tmp")
    ap.add_argument("--child")
    ap.add_argument("--archs")
    ap.add_argument("--device", default="meta", choices=("meta", "cpu"))
    args = ap.parse_args()
    args.tmp = args.tmp or scratch_dir("passcfg", args.out)
    if args.child:
        return child(args)
    lf.run_child = run_child   # lower_field.run_one (meta, then CPU retry) with this script's child
    examples = lf.ensure_examples(args.examples)
    os.makedirs(args.out, exist_ok=True)
    existing = corpus_shas(args.out)
    state_path = os.path.join(args.out, "lowering.json")
    state = json.load(open(state_path)) if args.resume and os.path.exists(state_path) else {"files": {}}
    state["configs"] = sorted(set(state.get("configs", [])) | set(args.configs))
    todo = []
    for rel in lf.discover(examples):
        if args.only and not any(s in rel for s in args.only):
            continue
        src = open(os.path.join(examples, rel), errors="replace").read()
        archs, skip = lf.classify(rel, src)
        if skip or args.arch not in archs:
            continue
        if run_key(rel, args) in state["files"]:
            continue
        todo.append(rel)
    if args.only:   # in the order --only names them (a budget cut drops the last)
        todo.sort(key=lambda rel: next(i for i, x in enumerate(args.only) if x in rel))
    print(f"{len(todo)} example files to run; {len(existing)} distinct .tir texts in corpus/", flush=True)
    t0, not_run = time.time(), []
    for rel in todo:
        if time.time() - t0 > args.budget_s:
            not_run.append(rel)
            continue
        r = lf.run_one(rel, [f"{args.arch}__{c}" for c in args.configs], examples, args.tmp, args.timeout)
        fr = state["files"][run_key(rel, args)] = lf.summarize(r)
        write_outputs(state, args.out, existing, remove_stale=False)
        kept = sum(1 for k in fr["kernels"] if k.get("name"))
        print(f"{rel}: {fr['outcome']} {r['wall_s']}s, {sum(1 for k in fr['kernels'] if k['status'] != 'fail')} "
              f"lowered, {sum(1 for k in fr['kernels'] if k['status'] == 'fail')} failed, {kept} new "
              f"{fr.get('why', '')[:100]}", flush=True)
        with open(state_path, "w") as f:
            json.dump(state, f, indent=1, sort_keys=True)
    state["not_run"] = sorted(set(state.get("not_run", [])) - set(state["files"]) | set(not_run))
    write_outputs(state, args.out, existing, remove_stale=True)
    with open(state_path, "w") as f:
        json.dump(state, f, indent=1, sort_keys=True)
    note = (f"Not run (time budget): {len(state['not_run'])} files: " + ", ".join(f"`{x}`" for x in state["not_run"])
            if state["not_run"] else "")
    write_manifest(state, args.out, note)


if __name__ == "__main__":
    main()
