"""strip_module.py IN OUT HEADER: drop the IRModule wrapper TileLang prints (ir import, @I.ir_module, class Module),
dedent the prim_func by 4, and put the `#` header lines (file HEADER) after the tirx import line."""
import sys
src, out, header = sys.argv[1:4]
lines = open(src).read().splitlines()
body = []
for ln in lines:
    if ln.startswith("# from tvm.script import ir as I") or ln.strip() in ("@I.ir_module", "class Module:"):
        continue
    if ln.startswith("# from tvm.script import tirx as T"):
        continue
    if ln.strip() == "" and not body:
        continue
    body.append(ln[4:] if ln.startswith("    ") else ln)
hdr = [h if h.startswith("#") else "# " + h for h in open(header).read().splitlines()]
open(out, "w").write("\n".join(["# from tvm.script import tirx as T"] + hdr + body) + "\n")
