"""strip_module.py IN OUT HEADER: drop the IRModule wrapper TileLang prints (`# from tvm.script import ir as I`,
`@I.ir_module`, `class Module:`), dedent the prim_func by 4, and put the `#` header lines (file HEADER; a line not
starting with `#` gets `# ` prepended) right after the `# from tvm.script import tir(x) as T` line, which is kept
first (TileLang 0.1.9 prints `tir`, 0.1.15 `tirx`). Nothing else is changed."""
import sys
src, out, header = sys.argv[1:4]
lines = open(src).read().splitlines()
imp, body = None, []
for ln in lines:
    if ln.startswith("# from tvm.script import ir as I") or ln.strip() in ("@I.ir_module", "class Module:"):
        continue
    if ln.startswith("# from tvm.script import tir"):
        imp = ln
        continue
    if ln.strip() == "" and not body:
        continue
    body.append(ln[4:] if ln.startswith("    ") else ln)
hdr = [h if h.startswith("#") else ("# " + h if h else "#") for h in open(header).read().splitlines()]
open(out, "w").write("\n".join([imp] + hdr + body) + "\n")
