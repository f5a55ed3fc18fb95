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

# What each mutation is expected to break, as rule codes a checker must report (any of them).
EXPECTED_RULES = {
    "drop-wait": {"AG101", "AG104"},
    "raise-wait": {"AG101", "AG103"},
    "drop-commit": {"AG101", "AG103"},
    "drop-barrier-after-wait": {"AG102", "AG101"},
    "drop-loop-head-barrier": {"AG103", "AG201"},
    "drop-barrier": {"AG102", "AG103", "AG201"},
}


@dataclass(frozen=True)
class Mutation:
    kind: str
    line: int          # 1-based line of the original text
    description: str

    def apply(self, text: str) -> str:
        lines = text.splitlines(keepends=True)
        i = self.line - 1
        if self.kind == "raise-wait":
            m = _WAIT.match(lines[i].rstrip("\r\n"))
            end = lines[i][len(lines[i].rstrip("\r\n")):]
            lines[i] = f"{m.group(1)}T.ptx_wait_group({int(m.group(2)) + 1}){end}"
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
