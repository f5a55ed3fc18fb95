"""The pipeline, one direction: text -> parse -> elaborate (models) -> machine -> checks."""
from __future__ import annotations

from dataclasses import dataclass, field

from . import checks
from .diagnostics import Finding, verdict
from .engine.machine import Machine
from .engine.program import elaborate
from .checks.resources import KernelContext
from .parse import parse


@dataclass
class Limits:
    max_steps: int = 2_000_000
    max_threads: int = 1024


@dataclass
class KernelReport:
    name: str
    findings: list = field(default_factory=list)
    threads: int = 0
    steps: int = 0
    blocks: list = field(default_factory=lambda: [{}])   # block indices checked
    resources: dict = field(default_factory=dict)   # shared-memory budget (checks/resources.py)
    scope: list = field(default_factory=list)        # what the verdict covers, in words


@dataclass
class FileReport:
    path: str
    kernels: list = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        return [f for k in self.kernels for f in k.findings]

    @property
    def verdict(self) -> str:
        return verdict(self.findings)


def check_text(text: str, path: str = "<string>", limits: Limits | None = None,
               arch: str | None = None, assumptions: list | None = None) -> FileReport:
    """Check every prim_func in a TVMScript text. Raises parse.InputError for bad input.
    `assumptions`: expressions over symbolic sizes ("K >= 1", "K % 32 == 0")."""
    limits = limits or Limits()
    module = parse(text, path)
    if isinstance(assumptions, dict):      # [tool.asyncguard.assumptions] K = "K >= 1"
        assumptions = list(assumptions.values())
    if assumptions:
        from .prover.sizes import parse_assumption   # loads z3: only when a proof may be needed
        asm = [parse_assumption(a) if isinstance(a, str) else a for a in assumptions]
    else:
        asm = []
    report = FileReport(path)
    for func in module.functions:
        program = elaborate(func)
        kernel = KernelContext(program, func, text, arch)   # resource checks (AG5xx)
        blocks = program.launch.sample_blocks() if program.block_dependent else [{}]
        sizes = None
        if program.symbols:
            from .prover.sizes import plan_sizes
            sizes = plan_sizes(program, asm)
        size_cases = sizes.values if sizes is not None and sizes.values else [{}]
        findings, seen, steps, scope = [], set(), 0, []
        for size in size_cases:
            for block in blocks:
                machine = Machine(program, max_steps=limits.max_steps, max_threads=limits.max_threads,
                                  block=block, sizes=size)
                for reason, span in program.notes:
                    machine._note(reason, span)
                kernel.observe(machine)
                result = machine.run()
                steps += result.steps
                for span, n, a, b, how in result.accelerated:
                    line = (f"loop at line {span.line} ({n} iterations): " +
                            (f"iterations {a}..{b - 1} skipped, {how}" if a is not None else how))
                    if line not in scope:
                        scope.append(line)
                for f in checks.run_all(result, path, kernel=kernel):
                    key = (f.rule.code, f.line, f.col)
                    if key not in seen:
                        seen.add(key)
                        if block:
                            f.witness["block"] = dict(block)
                        if size:
                            f.witness["sizes"] = dict(size)
                        findings.append(f)
        if sizes is not None and sizes.symbol:
            scope.insert(0, sizes.scope)
        if len(blocks) > 1:
            scope.insert(0, f"blocks checked: {blocks}")
        findings.sort(key=lambda f: (f.line, f.col, f.rule.code))
        report.kernels.append(KernelReport(func.name, findings, program.launch.num_threads, steps,
                                           blocks, kernel.row(), scope or ["the launch as written"]))
    return report
