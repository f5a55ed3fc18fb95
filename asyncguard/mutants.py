"""Single-bug mutations of TIR text: the bugs compilers actually ship, one at a time.

Used to build the corpus's variants (`corpus/variants/`) and by the mutation-score benchmark.
Each mutation edits one line of the file (delete it, or change a number) and keeps every other
byte as it was.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_WAIT = re.compile(r"^(\s*)T\.ptx_wait_group\((\d+)\)\s*$")
_COMMIT = re.compile(r"^\s*T\.ptx_commit_group\(\)\s*$")
_SYNC = re.compile(r"^\s*T\.tvm_storage_sync\(\"shared(\.dyn)?\"\)\s*$")
_LOOP = re.compile(r"^\s*for .* in T\.serial\(.*tl_pipelined_num_stages|^\s*for .* in (T\.serial|range)\(")

_PARITY = re.compile(r"^(\s*)T\.mbarrier_wait_parity\((.*)\)\s*$")
_INIT = re.compile(r"^(\s*)T\.ptx_init_barrier_thread_count\((.*), (\d+)\)\s*$")
_EXPECT = re.compile(r"^(\s*)T\.(mbarrier_expect_tx|ptx_arrive_barrier_expect_tx)\((.*), (\d+)\)\s*$")
_DROP = {  # whole-line statements whose removal is a classic Hopper bug
    # an mbarrier arrive, or a tcgen05.commit (tcgen05_mma_arrive): the MMAs' completion never arrives
    "drop-arrive": re.compile(r"^\s*T\.(ptx_arrive_barrier\([^,]*\)|tcgen05_mma_arrive\(.*\))\s*$"),
    "drop-warpgroup-wait": re.compile(r"^\s*T\.warpgroup_wait\(0\)\s*$"),
    "drop-fence-barrier-init": re.compile(r"^\s*T\.ptx_fence_barrier_init\(\)\s*$"),
    "drop-mbarrier-wait": re.compile(r"^\s*T\.mbarrier_wait_parity\(.*\)\s*$"),
    "drop-proxy-fence": re.compile(r"^\s*T\.fence_proxy_async\(\)\s*$"),
    # thread-block clusters: the cluster barrier, an arrival on a peer CTA's mbarrier
    "drop-cluster-sync": re.compile(r"^\s*T\.(cluster_sync\(\)|tvm_storage_sync\(\"cluster\"\))\s*$"),
    "drop-remote-arrive": re.compile(r"^\s*T\.ptx_arrive_cluster_barrier\(.*\)\s*$"),
}

# What each mutation is expected to break, as rule codes a checker must report (any of them).
EXPECTED_RULES = {
    "flip-parity": {"AG409", "AG401", "AG408", "AG103", "AG402", "AG410"},
    "init-count-plus-one": {"AG408", "AG406"},
    "expect-tx-halved": {"AG401", "AG407", "AG408", "AG406"},
    "expect-tx-plus-1024": {"AG407", "AG408"},
    "drop-arrive": {"AG408", "AG406"},
    "drop-warpgroup-wait": {"AG402", "AG411"},
    "drop-fence-barrier-init": {"AG404"},
    # (AG201: data a peer CTA stored remotely and released with an arrive; models/cluster.py)
    "drop-mbarrier-wait": {"AG401", "AG402", "AG103", "AG408", "AG410", "AG409", "AG201"},
    "drop-proxy-fence": {"AG405"},
    "drop-wait": {"AG101", "AG104"},
    "raise-wait": {"AG101", "AG103"},
    "drop-commit": {"AG101", "AG103"},
    "drop-barrier-after-wait": {"AG102", "AG101"},
    "drop-loop-head-barrier": {"AG103", "AG201", "AG402"},
    "drop-barrier": {"AG102", "AG103", "AG201", "AG403", "AG401", "AG402", "AG405"},
    "drop-cluster-sync": {"AG403", "AG430", "AG201", "AG103", "AG401", "AG402"},
    "drop-remote-arrive": {"AG408", "AG406", "AG103", "AG402", "AG401"},
}


def split_args(text: str) -> list[str]:
    """Split a call's argument text at its top-level commas."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _only_statement(lines: list, i: int) -> bool:
    code = [j for j, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("#")]
    pos = code.index(i)
    prev_opens = pos > 0 and lines[code[pos - 1]].rstrip().endswith(":")
    next_closes = pos + 1 >= len(code) or _indent(lines[code[pos + 1]]) < _indent(lines[i])
    return prev_opens and next_closes


# The kind of finding each mutation must produce (race / hang / invalid).
EXPECTED_KINDS = {
    "drop-wait": {"race"}, "raise-wait": {"race"}, "drop-commit": {"race"},
    "drop-barrier-after-wait": {"race"}, "drop-loop-head-barrier": {"race"},
    "drop-barrier": {"race", "invalid"}, "flip-parity": {"race", "hang"},
    "init-count-plus-one": {"hang"}, "expect-tx-halved": {"race", "hang"},
    "expect-tx-plus-1024": {"hang"}, "drop-arrive": {"hang"}, "drop-warpgroup-wait": {"race"},
    "drop-fence-barrier-init": {"invalid"}, "drop-mbarrier-wait": {"race", "hang"},
    "drop-proxy-fence": {"race"},
    "drop-cluster-sync": {"race", "invalid"}, "drop-remote-arrive": {"race", "hang"},
}


@dataclass(frozen=True)
class Mutation:
    kind: str
    line: int          # 1-based line of the original text
    description: str

    def apply(self, text: str) -> str:
        lines = text.splitlines(keepends=True)
        i = self.line - 1
        body = lines[i].rstrip("\r\n")
        end = lines[i][len(body):]
        if self.kind == "raise-wait":
            m = _WAIT.match(body)
            lines[i] = f"{m.group(1)}T.ptx_wait_group({int(m.group(2)) + 1}){end}"
        elif self.kind == "flip-parity":
            m = _PARITY.match(body)
            bar, parity = split_args(m.group(2))
            lines[i] = f"{m.group(1)}T.mbarrier_wait_parity({bar}, T.bitwise_xor({parity}, 1)){end}"
        elif self.kind == "init-count-plus-one":
            m = _INIT.match(body)
            lines[i] = f"{m.group(1)}T.ptx_init_barrier_thread_count({m.group(2)}, {int(m.group(3)) + 1}){end}"
        elif self.kind in ("expect-tx-halved", "expect-tx-plus-1024"):
            m = _EXPECT.match(body)
            n = int(m.group(4))
            n = n // 2 if self.kind == "expect-tx-halved" else n + 1024
            lines[i] = f"{m.group(1)}T.{m.group(2)}({m.group(3)}, {n}){end}"
        elif _only_statement(lines, i):   # keep the block valid: TVMScript's no-op statement
            indent = body[: len(body) - len(body.lstrip())]
            lines[i] = f"{indent}T.evaluate(0){end}"
        else:
            del lines[i]
        return "".join(lines)


def _prev_code_line(lines, i):
    j = i - 1
    while j >= 0 and (not lines[j].strip() or lines[j].lstrip().startswith("#")):
        j -= 1
    return j


def mutations(text: str) -> list[Mutation]:
    """Every single-bug mutation that applies to `text`."""
    lines = text.splitlines()
    out: list[Mutation] = []
    for i, line in enumerate(lines):
        n = i + 1
        m = _WAIT.match(line)
        if m:
            out.append(Mutation("drop-wait", n, f"drop T.ptx_wait_group({m.group(2)}) at line {n}"))
            out.append(Mutation("raise-wait", n, f"raise T.ptx_wait_group({m.group(2)}) to "
                                                 f"{int(m.group(2)) + 1} at line {n}"))
        elif _PARITY.match(line):
            out.append(Mutation("flip-parity", n, f"flip the parity of the mbarrier wait at line {n}"))
            out.append(Mutation("drop-mbarrier-wait", n, f"drop the mbarrier wait at line {n}"))
        elif _INIT.match(line):
            out.append(Mutation("init-count-plus-one", n, f"init count + 1 at line {n}"))
        elif _EXPECT.match(line):
            out.append(Mutation("expect-tx-halved", n, f"halve the expect_tx bytes at line {n}"))
            out.append(Mutation("expect-tx-plus-1024", n, f"expect_tx + 1024 bytes at line {n}"))
        elif any(rx.match(line) for k, rx in _DROP.items() if k != "drop-mbarrier-wait"):
            kind = next(k for k, rx in _DROP.items() if rx.match(line))
            out.append(Mutation(kind, n, f"{kind.replace('-', ' ')} at line {n}"))
        elif _COMMIT.match(line):
            out.append(Mutation("drop-commit", n, f"drop T.ptx_commit_group() at line {n}"))
        elif _SYNC.match(line):
            p = _prev_code_line(lines, i)
            prev = lines[p] if p >= 0 else ""
            if _WAIT.match(prev):
                out.append(Mutation("drop-barrier-after-wait", n,
                                    f"drop the barrier after the wait at line {p + 1} (line {n})"))
            elif _LOOP.match(prev):
                out.append(Mutation("drop-loop-head-barrier", n,
                                    f"drop the barrier that opens the loop body at line {n}"))
            else:
                out.append(Mutation("drop-barrier", n, f"drop the barrier at line {n}"))
    return out
