"""Hand edit applied to the 0.1.15 output of lower_tilelang786_minference_wait_group.py: python THIS IN OUT.
TileLang 0.1.15 no longer turns the example's `with T.attr("default", "async_scope", 1)` gather stores into
cp.async (it prints them as plain vectorized stores under the attr, and its CUDA has no cp.async, only the
example's own commit/wait), whereas the TileLang the example was written for did (InjectPtxAsyncCopy: a store
`dst[a:a+8] = T.if_then_else(p, src[b:b+8], 0)` in an async_scope becomes a predicated, zero-filling cp.async
of 16 bytes). This script does that conversion, and nothing else: each such store under an async_scope attr
becomes `T.ptx_cp_async(T.tvm_access_ptr(f16, DST, a, 8, 2), T.tvm_access_ptr(f16, SRC, b, 8, 1), 8, p)`
(0.1.15's own spelling of a predicated cp.async, element count), and the attr line is dropped."""
import sys

DATA = {"K_shared_1_1": "K_shared_1", "V_shared_1_1": "V_shared_1", "K_shared_2_1": "K_shared_2",
        "V_shared_2_1": "V_shared_2", "K_1": "K", "V_1": "V"}


def split_top(s, sep):
    depth, out, cur = 0, [], ""
    i = 0
    while i < len(s):
        c = s[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if depth == 0 and s.startswith(sep, i):
            out.append(cur); cur = ""; i += len(sep); continue
        cur += c; i += 1
    out.append(cur)
    return out


def bracket(s, start):
    """s[start] == '[': return (inside, index after the closing bracket)."""
    depth = 0
    for j in range(start, len(s)):
        if s[j] == "[":
            depth += 1
        elif s[j] == "]":
            depth -= 1
            if depth == 0:
                return s[start + 1:j], j + 1
    raise ValueError(s)


def convert(line):
    ind = line[:len(line) - len(line.lstrip())]
    body = line.strip()
    name = body[:body.index("[")]
    inside, k = bracket(body, body.index("["))
    lo = split_top(inside, ":")[0].strip()
    rhs = body[k:].strip()
    assert rhs.startswith("= T.if_then_else("), line
    args = split_top(rhs[len("= T.if_then_else("):-1], ", ")
    pred, src, zero = args
    assert zero.strip() == "T.Broadcast(T.float16(0.0), 8)", zero
    sname = src[:src.index("[")]
    sinside, _ = bracket(src, src.index("["))
    slo = split_top(sinside, ":")[0].strip()
    f16 = 'T.type_annotation("float16")'
    return (f"{ind}T.ptx_cp_async(T.tvm_access_ptr({f16}, {DATA[name]}, {lo}, 8, 2), "
            f"T.tvm_access_ptr({f16}, {DATA[sname]}, {slo}, 8, 1), 8, {pred})")


lines = open(sys.argv[1]).read().splitlines()
out, in_async, async_indent, dedent = [], False, None, 0
for l in lines:
    ind = len(l) - len(l.lstrip())
    if 'T.attr("default", "async_scope", 1)' in l:
        # `with T.attr(...):` opens a block (its body is dedented by 4); a bare `T.attr(...)` line scopes
        # the statements after it at its own indentation
        in_async, async_indent = True, ind
        dedent = 4 if l.strip().startswith("with ") else 0
        continue
    if in_async and l.strip() and ind <= async_indent - (0 if dedent else 0) and (dedent or not (
            l.strip().startswith("for ") or "= T.if_then_else(" in l)):
        if dedent or ind < async_indent or not l.strip().startswith("for "):
            in_async, dedent = False, 0
    if in_async and dedent and l.startswith(" " * (async_indent + 4)):
        l = l[4:]
    if in_async and "= T.if_then_else(" in l and l.strip().split("[")[0] in DATA:
        out.append(convert(l)); continue
    out.append(l)
open(sys.argv[2], "w").write("\n".join(out) + "\n")
