"""Single-bug variants of a real kernel, flagged: shared by the tests that convert a field kernel
to a definite verdict (the kernel clean, chosen variants in the region the change decides buggy)."""
from asyncguard.analyze import check_text
from asyncguard.mutants import EXPECTED_RULES, mutations


def assert_variants_flagged(text: str, chosen: set, each=None) -> None:
    """Each (kind, line) variant of `text` in `chosen` is buggy with a rule its kind expects;
    `each(report)` adds a check per variant. Every chosen variant must exist."""
    chosen = set(chosen)
    for m in mutations(text):
        if (m.kind, m.line) not in chosen:
            continue
        rep = check_text(m.apply(text))
        assert rep.verdict == "buggy", m.description
        assert {f.rule.code for f in rep.findings} & EXPECTED_RULES[m.kind], m.description
        if each is not None:
            each(rep)
        chosen.discard((m.kind, m.line))
    assert not chosen, chosen
