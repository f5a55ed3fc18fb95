"""The rule registry keeps its conventions; docs/rules.md is generated from it."""
import re

from _toolbelt import ROOT, run

from asyncguard.cli import main
from asyncguard.diagnostics import DOC_HEADINGS, KINDS, SEVERITIES
from asyncguard.report.rules_doc import load_all_rules, missing_headings, render_markdown, sections

RULES = load_all_rules()


def test_every_rule_has_every_heading():
    bad = {code: missing_headings(r) for code, r in RULES.items() if missing_headings(r)}
    assert bad == {}


def test_headings_in_order_with_code_examples():
    for r in RULES.values():
        heads = list(sections(r.doc))
        assert [h for h in heads if h in DOC_HEADINGS] == list(DOC_HEADINGS), r.code
        assert "```" in sections(r.doc)["Example"], r.code


def test_codes_are_unique_and_well_formed():
    assert len({r.code for r in RULES.values()}) == len(RULES)
    assert len({r.name for r in RULES.values()}) == len(RULES)
    for code, r in RULES.items():
        assert code == r.code and re.fullmatch(r"AG\d{3}", code)
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", r.name)
        assert r.kind in KINDS and r.severity in SEVERITIES


def test_docs_rules_md_is_up_to_date():
    committed = (ROOT / "docs" / "rules.md").read_text()
    assert committed == render_markdown(), (
        "docs/rules.md is stale: run `python -m asyncguard.report.rules_doc > docs/rules.md`")
    for code in RULES:
        assert f'<a id="{code.lower()}"></a>' in committed and f"## {code} " in committed


def test_rules_lists_every_rule_and_explain_prints_the_doc(capsys):
    p = run("rules")
    listed = [line.split()[0] for line in p.stdout.splitlines() if line.strip()]
    assert p.returncode == 0 and listed == sorted(RULES)
    e = run("explain", "ag101")   # the command as a user runs it; the rest in this process
    assert e.returncode == 0 and RULES["AG101"].doc in e.stdout
    for code, r in RULES.items():
        assert main(["explain", code.lower()]) == 0 and r.doc in capsys.readouterr().out
    assert main(["explain", "unused-suppression"]) == 0
