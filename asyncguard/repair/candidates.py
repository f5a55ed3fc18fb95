"""Candidate repairs for one finding, as data: tuples of `Edit`s, most preferred first.

Generated from the finding's witness (the two accesses, the wait or init it names) and the
syntax tree. Nothing here decides whether a candidate works: the search re-runs the checker.
Preference: reuse synchronization already there (change a count, a parity) before inserting;
barriers only where every thread of the block arrives.
"""
from __future__ import annotations

import re

from .. import ir
from ..models.cp_async import COMMIT_SCOPE, INFLIGHT_COUNT, WAIT_SCOPE
from ..models.tma import load_operands
from .edits import Edit, body
from .tree import Gap, Tree, call_of, calls_in, last_line

BARRIER = 'T.tvm_storage_sync("shared")'
CLUSTER_BARRIER = "T.cluster_sync()"   # barrier.cluster.arrive + wait: orders the CTAs of a cluster
COMMIT = "T.ptx_commit_group()"
WG_WAIT = "T.warpgroup_wait(0)"
FENCE_PROXY = "T.fence_proxy_async()"
FENCE_INIT = "T.ptx_fence_barrier_init()"
TCGEN05_BEFORE = "T.tcgen05_before_thread_sync()"
TCGEN05_AFTER = "T.tcgen05_after_thread_sync()"
# tcgen05.commit: the MMAs' completion arrives on its mbarrier (models/tcgen05.py)
COMMIT_ARRIVE = "T.tcgen05_mma_arrive"

# the witness names a barrier by its allocation and slot, `mbarrier[2]`; any buffer name
_BAR = re.compile(r"\w+\[(\d+)\]")



def _group_op(stmt) -> str | None:
    """The cp.async group operation a statement is: a commit or wait call, or one of TileLang
    0.1.8's async-queue attrs that codegen prints as one (models/cp_async.py): a commit scope
    (`with`, or a statement whose body is the rest of its block) commits after its body, a wait
    scope and an inflight count wait. None for anything else."""
    c = call_of(stmt)
    if c is not None and c.name in ("T.ptx_commit_group", "T.ptx_wait_group"):
        return c.name
    e = stmt.ctx if isinstance(stmt, ir.With) else c
    if isinstance(e, ir.Call) and e.name == "T.attr" and len(e.args) == 3 and isinstance(e.args[1], ir.Const):
        return {COMMIT_SCOPE: "T.ptx_commit_group", WAIT_SCOPE: "T.ptx_wait_group",
                INFLIGHT_COUNT: "T.ptx_wait_group"}.get(e.args[1].value)
    return None


def _count_arg(stmt) -> int:
    """Which argument of a wait statement is its group count: `T.ptx_wait_group(n)`'s first, or
    the third of TileLang 0.1.8's `T.attr(0, "async_wait_inflight_count", n)`, which codegen
    prints as `cp.async.wait_group n` (models/cp_async.py)."""
    c = call_of(stmt)
    if c is not None and c.name == "T.attr" and len(c.args) == 3 and isinstance(c.args[1], ir.Const) \
            and c.args[1].value == INFLIGHT_COUNT:
        return 2
    return 0

class Generator:
    def __init__(self, tree: Tree, orig_line):
        self.t = tree
        self.orig = orig_line          # new-text line -> original line (nearest)
        self._declared = None           # data name -> shared.barrier buffer (_barrier_buffers)
        self.line_start = [0]
        for ln in tree.lines:
            self.line_start.append(self.line_start[-1] + len(ln))

    # ------------------------------------------------------------ helpers
    def L(self, n):
        return self.orig(n) if n else n

    def insert(self, gaps, text, why, uniform=False, limit=None):
        out = []
        for g in gaps:
            if uniform and not self.t.uniform(g):
                continue
            e = self.t.gap_edit(g, text, why)
            if e is not None:
                out.append((e,))
            if limit and len(out) >= limit:
                break
        return out

    def replace_arg(self, stmt, argi: int, new: str, why: str):
        call = call_of(stmt)
        if call is None or argi >= len(call.args):
            return None
        a = call.args[argi]
        if a.span.line != a.span.end_line:
            return None
        ln = a.span.line
        start = self.line_start[ln - 1]
        old = body(self.t.lines[ln - 1])
        lo, hi = a.span.start - start, a.span.end - start
        text = old[:lo] + new + old[hi:]
        if text == old:
            return None
        return (Edit(ln, "replace", text, "", why),)

    def int_arg(self, stmt, i):
        c = call_of(stmt)
        if c is None or i >= len(c.args) or not isinstance(c.args[i], ir.Const):
            return None
        v = c.args[i].value
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    def bar_index(self, stmt, i=0):
        """Constant index of an mbarrier argument `mbarrier_1[2]`, or None."""
        c = call_of(stmt)
        if c is None or i >= len(c.args):
            return None
        a = c.args[i]
        if isinstance(a, ir.Subscript) and len(a.indices) == 1 and isinstance(a.indices[0], ir.Const):
            return a.indices[0].value
        if isinstance(a, ir.Call) and a.name == "T.get_mbarrier" and a.args and isinstance(a.args[0], ir.Const):
            return a.args[0].value
        return None

    def lower_waits(self, stmts, n_from=None, why="lower the wait count"):
        out = []
        for s in stmts:
            at = _count_arg(s)
            n = self.int_arg(s, at)
            if n is None or n == 0:
                continue
            top = n - 1 if n_from is None else min(n - 1, n_from)
            for m in range(top, -1, -1):
                c = self.replace_arg(s, at, str(m), why)
                if c:
                    out.append(c)
        return out

    # ------------------------------------------------------------ per rule
    def for_finding(self, f) -> list[tuple]:
        w, code = f.witness, f.rule.code
        first = w.get("first") or w.get("copy") or w.get("operation") or {}
        second = w.get("second") or {}
        first = first if isinstance(first, dict) else {}    # AG430 names its operation in words
        second = second if isinstance(second, dict) else {}
        A = self.L(first.get("line") or w.get("init_line") or 0)
        B = self.L(second.get("line") or f.line)
        t = self.t
        out: list[tuple] = []
        if code in ("AG101", "AG103", "AG104"):
            for s in self.unclosed_copies():
                out += self.commit_candidates(s.span.line)[:2]
        if code == "AG101":
            group, committed = w.get("group"), w.get("committed")
            nmax = committed - 1 - group if group is not None and committed is not None else 2
            if w.get("last_wait_line"):
                s = t.stmt_at(self.L(w["last_wait_line"]))
                if s is not None:
                    out += self.lower_waits([s])
            out += self.commit_candidates(A)
            gaps = t.gaps_between(A, B) if A else t.gaps_before(B)
            def before_barrier(g):
                stmts = t.blocks[g.block].stmts
                c = call_of(stmts[g.index]) if g.index < len(stmts) else None
                return 0 if c is not None and c.name == "T.tvm_storage_sync" else 1
            for g in sorted(gaps, key=before_barrier)[:10]:
                for n in range(max(nmax, 0), -1, -1):
                    out += self.insert([g], f"T.ptx_wait_group({n})", "wait for the copy's group")
            out += self.insert(gaps, BARRIER, "order the wait before the read", uniform=True)
            # another thread's bytes: the issuer's wait and then a barrier (two statements)
            for g in [g for g in gaps if t.uniform(g)][:4]:
                for n in range(max(nmax, 0), -1, -1):
                    e1 = t.gap_edit(g, f"T.ptx_wait_group({n})", "wait for the copy's group")
                    e2 = t.gap_edit(g, BARRIER, "publish the landed copy")
                    if e1 and e2:
                        out.append((e1, e2))
        elif code == "AG102":
            wl = self.L(w["wait_line"]) if w.get("wait_line") else A
            gaps = t.gaps_between(wl, B)
            gaps = sorted(gaps, key=lambda g: 0 if t.norm(g) == t.norm(t.gaps_after(wl)[0]) else 1)
            out += self.insert(gaps, BARRIER, "publish the landed copy to the other threads",
                               uniform=True)
        elif code in ("AG103", "AG201", "AG402", "AG403", "AG420", "AG421"):
            out += self.insert(t.gaps_between(A, B), BARRIER,
                               "order the last access before the overwrite", uniform=True)
            out += self.named_barriers(t.gaps_between(A, B), "order the last access before the overwrite")
            if code == "AG402" and "wgmma" in str(first.get("op", "")):
                out += self.wg_wait_candidates(A)
        elif code == "AG104":
            waits = sorted((s for s in t.calls("T.ptx_wait_group") if s.span.line > A),
                           key=lambda s: -s.span.line)
            flat = [s for s in waits if t.blocks[t.where[id(s)][0]].depth_loops == 0]
            out += self.lower_waits(flat, why="complete every copy")
            body_ = t.blocks[0].stmts
            out += self.insert([Gap(0, len(body_))], "T.ptx_wait_group(0)", "complete every copy")
            out += self.lower_waits([s for s in waits if s not in flat], why="complete every copy")
            out += self.insert(t.gaps_after(A)[1:], "T.ptx_wait_group(0)", "complete every copy")
        elif code == "AG411":
            out += self.wg_wait_candidates(A)
        elif code == "AG404":
            out += self.insert(t.gaps_after(A), FENCE_INIT, "fence the mbarrier init")
        elif code == "AG432":
            # the fence the witness names: the second thread's after the synchronization, before its
            # operation; the first thread's after its operation, before the synchronization
            missing = str(w.get("missing", ""))
            if "after_thread_sync" in missing:
                out += self.insert(t.gaps_before(B), TCGEN05_AFTER,
                                   "order the tcgen05 operation after the synchronization")
            if "before_thread_sync" in missing:
                out += self.insert(t.gaps_after(A), TCGEN05_BEFORE,
                                   "order the tcgen05 operation before the synchronization")
        elif code == "AG405":
            out += self.insert(t.gaps_before(B) + t.gaps_after(A), FENCE_PROXY,
                               "order generic-proxy writes before the async-proxy read")
        elif code == "AG303":
            out += self.arrive_to_sync(self.L(w["arrivals"][0]["line"]))
        elif code in ("AG410", "AG413"):
            out += self.wait_into_elected_branch(f.line)
            out += self.every_waiter_releases(f)
        if t.clustered and code in ("AG103", "AG201", "AG401", "AG402", "AG403", "AG408",
                                                 "AG420", "AG430"):
            # the CTAs of a cluster are ordered by the cluster barrier only (a remote store, a
            # peer's barrier init, a CTA that must not exit before its peer is done with it)
            lo, hi = sorted((A or B, B or A))
            gaps = t.gaps_between(lo, hi) if hi > lo else t.gaps_after(lo)
            if code == "AG430":
                body_ = t.blocks[0].stmts
                gaps = [Gap(0, len(body_))] + t.gaps_after(A or B)
            out += self.insert(gaps, CLUSTER_BARRIER, "order the CTAs of the cluster", uniform=True)
        tma = "tma" in str(first.get("op", "")) + str(second.get("op", ""))
        if code.startswith("AG4") or tma:
            out += self.mbarrier_candidates(f, A, B)
        return out

    def next_group_op(self, s):
        """What closes the copy `s`: the first commit or wait met going forward (siblings, then
        the parents' siblings); a loop holding commits or waits before any commit counts as a
        wait (its first group would absorb the copy). None: the end of the kernel."""
        t = self.t
        for level, (bi, i) in enumerate(reversed(t.chain(s))):
            stmts = t.blocks[bi].stmts
            # a 0.1.8 commit scope around the copy, or before it as a statement (its body is the
            # rest of the block), commits the copy's group at its end
            if level and _group_op(stmts[i]) == "T.ptx_commit_group" \
                    or any(isinstance(x, ir.ExprStmt) and _group_op(x) == "T.ptx_commit_group" for x in stmts[:i]):
                return "T.ptx_commit_group"
            for x in stmts[i + 1:]:
                inner = [y for y in t.stmts if x.span.line < y.span.line <= last_line(x)
                         and _group_op(y) is not None]
                if inner and type(x).__name__ in ("For", "While"):
                    return "T.ptx_wait_group"
                # a statement's own operation; a `with` scope's comes after what its body does
                op = _group_op(inner[0]) if inner else _group_op(x)
                if op is not None:
                    return op
        return None

    def unclosed_copies(self) -> list:
        """cp.async statements that reach a wait (or the end) before any commit: a group must
        close there."""
        return [s for s in self.t.calls("T.ptx_cp_async") if self.next_group_op(s) != "T.ptx_commit_group"]

    def commit_candidates(self, A):
        t = self.t
        if not A or t.stmt_at(A) is None:
            return []

        def has_commit(g):
            return any((c := call_of(x)) is not None and c.name == "T.ptx_commit_group"
                       for x in t.blocks[g.block].stmts)
        gaps = sorted(t.gaps_after(A), key=lambda g: 0 if has_commit(g) else 1)
        return self.insert(gaps, COMMIT, "close the copy's group")

    def wg_wait_candidates(self, A):
        t = self.t
        out = []
        waits = [s for s in t.calls("T.warpgroup_wait") if s.span.line > A]
        out += self.lower_waits(waits[:2], why="wait for the wgmma")
        commits = [s for s in t.calls("T.warpgroup_commit_batch") if s.span.line > A]
        gaps = [Gap(*t.where[id(s)][:1], t.where[id(s)][1] + 1) for s in commits[:1]]
        gaps += t.gaps_after(A)
        out += self.insert(gaps, WG_WAIT, "wait for the wgmma before its operands are reused")
        # a release arrive issued before the warpgroup_wait that covers the wgmma: move it after
        for s in t.calls("T.warpgroup_wait"):
            bi, i = t.where[id(s)]
            for x in t.blocks[bi].stmts[:i]:
                c = call_of(x)
                if c is not None and c.name in ("T.ptx_arrive_barrier", "T.mbarrier_arrive") and x.span.line > A:
                    out.append((Edit(x.span.line, "delete", "", "", "move the release arrive"),
                                Edit(s.span.line, "insert-after", t.src(x), t.indent_of(x),
                                     "release after the wgmma completed")))
        return out

    # ------------------------------------------------------------ mbarriers
    def mbarrier_candidates(self, f, A, B):
        t, w = self.t, f.witness
        out = self.acquire_load_phase(f, A, B)
        m = _BAR.fullmatch(str(w.get("barrier", "")))
        bidx = int(m.group(1)) if m else None
        pending = w.get("pending_arrivals")
        tx = w.get("tx_bytes_outstanding")
        inits = t.calls("T.ptx_init_barrier_thread_count")
        expects = t.calls("T.mbarrier_expect_tx") + t.calls("T.ptx_arrive_barrier_expect_tx")
        waits = t.calls("T.mbarrier_wait_parity")
        waited = set(self._bars(["T.mbarrier_wait_parity"]))
        arrived = set(self._bars(["T.ptx_arrive_barrier", "T.mbarrier_arrive",
                                  "T.ptx_arrive_barrier_expect_tx", "T.tma_load", COMMIT_ARRIVE]))
        # structural first: a barrier someone waits on that nobody arrives on, and the reverse
        if waited - arrived:
            out += self.missing_arrive(waits)
        if arrived - waited and B:
            out += self.missing_wait(waits, B, A)
        later = []
        for s in sorted(inits, key=lambda s: self.bar_index(s) != bidx):
            n = self.int_arg(s, 1)
            if n is None:
                continue
            if pending and self.bar_index(s) == bidx and n - pending > 0:
                out.append(self.replace_arg(s, 1, str(n - pending), "the init count the protocol arrives with"))
            for v in (n - 1, n + 1):
                if v > 0:
                    later.append(self.replace_arg(s, 1, str(v), "the init count the protocol arrives with"))
        for s in expects:
            v = self.int_arg(s, 1)
            if v is None:
                continue
            if tx and v - tx > 0:
                out.append(self.replace_arg(s, 1, str(v - tx), "expect the bytes delivered"))
            if tx or f.rule.code in ("AG407", "AG401"):
                for nv in (v * 2, v // 2, v - 1024, v + 1024):
                    if nv > 0:
                        later.append(self.replace_arg(s, 1, str(nv), "expect the bytes delivered"))
        lines = [f.line] + [c.get("line") for c in w.get("cycle", []) if isinstance(c, dict)]
        order = sorted(waits, key=lambda s: (s.span.line not in lines, abs(s.span.line - f.line)))
        for s in order:
            (out if s.span.line in lines else later).append(self.flip_parity(s))
        out += later
        out = [c for c in out if c]
        if not waited - arrived:
            out += self.missing_arrive(waits)
        if not arrived - waited:
            out += self.missing_wait(waits, B, A)
        return out

    def named_barriers(self, gaps, why: str, limit: int = 4) -> list[tuple]:
        """`bar.sync ID, N` at gaps only some threads reach (a warp-specialized role's branch,
        where a block barrier would hang the others): N the threads that reach the gap
        (Tree.threads_at), ID the highest barrier id the kernel does not use."""
        t = self.t
        used = set()
        for name in ("T.tvm_storage_sync", "T.named_barrier_sync", "T.named_barrier_arrive"):
            for s in t.calls(name):
                c = call_of(s)
                i = 1 if name == "T.tvm_storage_sync" else 0
                if len(c.args) > i:
                    v = c.args[i]
                    if not isinstance(v, ir.Const):
                        return []   # an id computed at run time: any id may be taken
                    used.add(v.value)
        free = [b for b in range(15, 0, -1) if b not in used]
        if not free:
            return []
        out = []
        # the fewest enclosing loops first: once per iteration of the role's loop, not per
        # element of an unrolled copy loop inside it
        for g in sorted(gaps, key=lambda g: t.blocks[g.block].depth_loops):
            if t.uniform(g):
                continue
            n = t.threads_at(g)
            if not n or n % 32:
                continue
            e = t.gap_edit(g, f'T.tvm_storage_sync("shared", {free[0]}, {n})', why + f" ({n} threads reach it)")
            if e is not None:
                out.append((e,))
            if len(out) >= limit:
                break
        return out

    def arrive_to_sync(self, line: int) -> list[tuple]:
        """`bar.arrive` that runs a phase ahead (AG303) becomes `bar.sync` on the same barrier
        and count: the thread then waits for the phase it joined (vllm-project/vllm#26026's fix)."""
        s = self.t.stmt_at(line)
        c = call_of(s) if s is not None else None
        if c is None or c.name != "T.named_barrier_arrive" or len(c.args) != 2:
            return []
        old = body(self.t.lines[line - 1])
        text = old.replace("T.named_barrier_arrive(", 'T.tvm_storage_sync("shared", ', 1)
        return [(Edit(line, "replace", text, "", "make the arrival wait for its phase (bar.sync)"),)]

    def wait_into_elected_branch(self, line: int) -> list[tuple]:
        """A lapped waiter whose only work after the wait is an elected thread's branch (TileLang's
        producer: every thread waits on the empty barrier, one issues the TMA): the wait moves
        into that branch, as CUTLASS runs producer_acquire, so the threads that can be lapped no
        longer wait at all."""
        t = self.t
        s = t.stmt_at(line)
        c = call_of(s) if s is not None else None
        if c is None or c.name != "T.mbarrier_wait_parity" or s.span.line != last_line(s):
            return []
        bi, i = t.where[id(s)]
        nxt = t.blocks[bi].stmts[i + 1] if i + 1 < len(t.blocks[bi].stmts) else None
        if not isinstance(nxt, ir.If) or not nxt.then or nxt.other:
            return []
        cond = [x for x in calls_in(nxt.cond) if x.name == "T.tl_shuffle_elect"]
        if not cond:
            return []
        first = nxt.then[0]
        return [(Edit(s.span.line, "delete", "", "", "move the wait into the elected branch"),
                 Edit(first.span.line, "insert-before", t.src(s), t.indent_of(first),
                      "only the elected thread waits (CUTLASS producer_acquire)"))]

    def every_waiter_releases(self, f) -> list[tuple]:
        """Lapped waiters that act (AG410) while only an elected thread releases the stage: every
        waiter arrives instead, so the next phase waits for all of them. The elected branch
        around the release goes, and the release barriers' init count (1 for a leader) becomes
        the number of threads that now arrive: the lapped threads and the leader."""
        t = self.t
        threads = (f.witness.get("delay") or {}).get("threads") or []
        if not threads:
            return []
        count = len(threads) + 1
        inits = sorted((s for s in t.calls("T.ptx_init_barrier_thread_count") if self.int_arg(s, 1) == 1),
                       key=lambda s: s.span.line)
        out = []
        for g in t.stmts:
            if not isinstance(g, ir.If) or g.other or len(g.then) != 1 or g.span.line <= f.line:
                continue
            if not any(x.name == "T.tl_shuffle_elect" for x in calls_in(g.cond)):
                continue
            arrive = g.then[0]
            c = call_of(arrive)
            if c is None or c.name != "T.ptx_arrive_barrier" or arrive.span.line != last_line(arrive):
                continue
            ungate = (Edit(g.span.line, "delete", "", "", "every waiter releases the stage"),
                      Edit(arrive.span.line, "replace", t.indent_of(g) + t.src(arrive), "",
                           "every waiter releases the stage"))
            # the release barriers are consecutive inits; try each run of them
            for i in range(len(inits)):
                for j in range(i + 1, len(inits) + 1):
                    counts = tuple(self.replace_arg(s, 1, str(count), "every waiter arrives")
                                   for s in inits[i:j])
                    if all(counts):
                        out.append(ungate + tuple(e for c_ in counts for e in c_))
            break
        return out

    def flip_parity(self, s):
        call = call_of(s)
        if call is None or len(call.args) < 2:
            return None
        p = call.args[1]
        if isinstance(p, ir.Call) and p.name == "T.bitwise_xor" and len(p.args) == 2 and \
                isinstance(p.args[1], ir.Const) and p.args[1].value == 1:
            new = self.t.src(p.args[0])
        elif isinstance(p, ir.Const) and p.value in (0, 1):
            new = str(1 - int(p.value))
        else:
            new = f"T.bitwise_xor({self.t.src(p)}, 1)"
        return self.replace_arg(s, 1, new, "wait for the phase the protocol completes")

    def _bars(self, names):
        out = []
        for n in names:
            for s in self.t.calls(n):
                c = call_of(s)
                if n == COMMIT_ARRIVE:
                    out += [b for b in (self._committed_barrier(c),) if b]
                elif n == "T.tma_load":
                    out += [b for b in (self._load_barrier(s),) if b]
                elif c.args:
                    out.append(self.t.src(c.args[0]))
        return list(dict.fromkeys(out))

    def _committed_barrier(self, call) -> str | None:
        """The mbarrier a tcgen05.commit arrives on, named as a wait names it. TileLang passes it
        by address, `T.tvm_access_ptr(T.type_annotation("uint64"), mbar.data, OFF, ...)`, and
        waits on `mbar_1[OFF]`, the shared.barrier buffer declared on the same data. None when
        the argument is another form or no buffer is declared on it."""
        a = call.args[0] if len(call.args) == 1 else None
        if not (isinstance(a, ir.Call) and a.name == "T.tvm_access_ptr" and len(a.args) == 5):
            return None
        data = a.args[1]
        if not (isinstance(data, ir.Attr) and data.name == "data" and isinstance(data.value, ir.Var)):
            return None
        buf = self._barrier_buffers().get(data.value.name)
        return f"{buf}[{self.t.src(a.args[2])}]" if buf else None

    def _barrier_buffers(self) -> dict:
        """data name -> the first shared.barrier buffer declared on it (`mbar_1 =
        T.decl_buffer((1,), "uint64", data=mbar.data, scope="shared.barrier")`)."""
        if self._declared is None:
            self._declared = {}
            for s in self.t.stmts:
                v = s.value if isinstance(s, ir.Assign) and isinstance(s.target, ir.Var) else None
                if not (isinstance(v, ir.Call) and v.name == "T.decl_buffer"):
                    continue
                data, scope = v.kwarg("data"), v.kwarg("scope")
                if isinstance(data, ir.Attr) and data.name == "data" and isinstance(data.value, ir.Var) \
                        and isinstance(scope, ir.Const) and scope.value == "shared.barrier":
                    self._declared.setdefault(data.value.name, s.target.name)
        return self._declared

    def acquire_load_phase(self, f, A, B):
        """AG401 on a TMA load: before the access, a wait for the phase the witness names of
        the barrier the load completes on; then the same wait on every barrier of the loads
        issued with it (under the same branch: one producer's stage, a K and a V tile), which
        an access overwriting the stage needs too. The loads' own barriers and parity are what
        a pipeline's epilogue or an empty-loop path misses; the generic candidates below guess
        among every barrier and parity of the kernel."""
        phase = f.witness.get("phase") if f.rule.code == "AG401" else None
        t = self.t
        s = t.stmt_at(A) if A and B and phase is not None else None
        if s is None or self._load_barrier(s) is None:
            return []
        chain = t.chain(s)
        branch = max((k for k, (bi, i) in enumerate(chain) if isinstance(t.blocks[bi].stmts[i], ir.If)),
                     default=None)
        together = [x for x in t.calls("T.tma_load") if branch is not None
                    and t.chain(x)[:branch + 1] == chain[:branch + 1]]
        bars = list(dict.fromkeys([self._load_barrier(s)] + [self._load_barrier(x) for x in together]))
        bars = [b for b in bars if b is not None]
        waits = [f"T.mbarrier_wait_parity({b}, {phase % 2})" for b in bars]
        out = []
        for g in t.gaps_before(B)[:3]:
            edits = [t.gap_edit(g, w, "wait for the phase that completes the load") for w in waits]
            if all(edits):
                out.append(edits[:1])
                if len(edits) > 1:
                    out.append(edits)
        return [tuple(c) for c in out]

    def _load_barrier(self, s) -> str | None:
        """The barrier a `T.tma_load` statement completes on, as source text (None: not one)."""
        c = call_of(s)
        if c is None or c.name != "T.tma_load" or len(c.args) < 3:
            return None
        return self.t.src(load_operands(c)[0])

    def missing_wait(self, waits, B, A=0):
        t = self.t
        # program order, never a set's: the candidates' order (and so the search's checks and,
        # between equally small repairs, its answer) must not depend on Python's hash seed
        waited = self._bars(["T.mbarrier_wait_parity"])
        arrived = self._bars(["T.ptx_arrive_barrier", "T.mbarrier_arrive", "T.ptx_arrive_barrier_expect_tx",
                              "T.tma_load", COMMIT_ARRIVE])
        bars = [b for b in arrived if b not in set(waited)] or list(dict.fromkeys(waited + arrived))
        base = list(dict.fromkeys(t.src(call_of(s).args[1]) for s in waits if len(call_of(s).args) > 1))
        allp = []
        for p in base:
            inner = p[len("T.bitwise_xor("):-len(", 1)")] if p.startswith("T.bitwise_xor(") and \
                p.endswith(", 1)") else None
            allp += [p, inner if inner is not None else f"T.bitwise_xor({p}, 1)"]
        allp = list(dict.fromkeys(allp + ["0", "1"]))   # a one-shot barrier waits on a constant parity
        gaps = t.gaps_before(B)[:3] if B else []
        near = {t.norm(g) for g in gaps}
        gaps += [g for g in self.release_gaps(A, B) if t.norm(g) not in near]
        out = []
        for g in gaps:
            for b in bars[:4]:
                for p in allp[:8]:
                    e = t.gap_edit(g, f"T.mbarrier_wait_parity({b}, {p})", "wait for the phase")
                    if e:
                        out.append((e,))
        return out

    def release_gaps(self, A, B, limit: int = 2) -> list[Gap]:
        """The points just before the releases of A's buffer: the arrives (a thread's, or a
        tcgen05.commit's) after the first access A in its thread's program order, on a barrier
        that B's side waits on before B; the first `limit` in program order. A wait for A's
        own completion belongs there, not before B: a tcgen05.mma reads its shared operand
        until its commit arrives, so a thread that waits for that commit only before its next
        read has already handed the buffer back, and the producer refills it under the MMA."""
        t = self.t
        sa, sb = (t.stmt_at(A), t.stmt_at(B)) if A and B else (None, None)
        if sa is None or sb is None:
            return []
        guarded = {t.src(call_of(w).args[0]) for w in t.calls("T.mbarrier_wait_parity")
                   if call_of(w).args and self._precedes(w, sb)}
        releases = sorted(t.calls("T.ptx_arrive_barrier") + t.calls("T.mbarrier_arrive") +
                          t.calls(COMMIT_ARRIVE), key=lambda s: s.span.line)
        out = []
        for s in releases:
            if s.span.line <= A or not self._precedes(sa, s):
                continue
            c = call_of(s)
            bar = self._committed_barrier(c) if c.name == COMMIT_ARRIVE else \
                (t.src(c.args[0]) if c.args else None)
            if bar in guarded:
                out.append(Gap(*t.where[id(s)]))
                if len(out) >= limit:
                    break
        return out

    def _precedes(self, a, b) -> bool:
        """Whether statement `a` runs before statement `b` in one thread's program order: in the
        lowest block holding both, `a`'s branch comes first (not the then and else of one
        `if`, and neither encloses the other)."""
        ca, cb = self.t.chain(a), self.t.chain(b)
        for x, y in zip(ca, cb):
            if x != y:
                return x[0] == y[0] and x[1] < y[1]
        return False

    def missing_arrive(self, waits):
        t = self.t
        arrived = set(self._bars(["T.ptx_arrive_barrier", "T.mbarrier_arrive",
                                  "T.ptx_arrive_barrier_expect_tx", COMMIT_ARRIVE]))
        waited = self._bars(["T.mbarrier_wait_parity"])
        bars = [b for b in waited if b not in arrived]
        if not bars:
            return []
        gaps = []
        for s in t.calls("T.warpgroup_wait"):
            bi, i = t.where[id(s)]
            gaps.append(Gap(bi, i + 1))
        for bi, blk in enumerate(t.blocks):
            if isinstance(blk.parent, (ir.For, ir.While)):
                gaps.append(Gap(bi, len(blk.stmts)))
        out = []
        for b in bars[:3]:
            out += self.insert(gaps, f"T.ptx_arrive_barrier({b})", "release the phase")
        return out
