"""The sanitizer gate on TileLang's block-sparse GEMMs whose mask tests are `T.all_of` / `T.any_of`
(tl::All / tl::Any over n consecutive elements): the skeleton emits them over a register range
(`ag_<kind>_reg` over the thread's register array), over a read-only global mask (`ag_<kind>_<root>`
looping over the launch's table `ag_num_<root>`, the table the plain mask loads read) and over
shared memory (one read of the n elements, as models/logical.py reads them; the value the
engine's taken 1). The table realises the range outcomes the reference run met (emit/cuda.py
`_realise_ranges`): a witness's false range is false on the GPU too. CPU only: the helpers are
emulated in Python over the table the emitted CUDA prints; nvcc compiles where present."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from asyncguard.emit import reference
from asyncguard.emit.cuda import EmitError, _realise_ranges, emit
from asyncguard.emit.prepare import Case, _prepare_instance, prepare
from asyncguard.engine.program import elaborate
from asyncguard.parse import parse

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "unseen_wide"
NAME = "language__language_{kind}__test_block_sparse_matmul_{where}__{arch}.tir"
FORMS = [(kind, where, arch) for kind in ("all_of", "any_of") for where in ("global", "local", "shared")
         for arch in ("sm_80",)] + [("all_of", "global", "sm_90a")]


@pytest.fixture(scope="module")
def cases():
    got = {}
    for kind, where, arch in FORMS:
        path = CORPUS / NAME.format(kind=kind, where=where, arch=arch)
        got[(kind, where, arch)] = prepare([str(path)])
    return got


def _table(src: str, root: str):
    body = re.search(rf"i64 ag_num_{root}\(i64 off\) {{ switch \(off\) {{(.*?)default: return (-?\d+)LL; }} }}", src)
    assert body, f"no table for {root}"
    cells = {int(o): int(v) for o, v in re.findall(r"case (-?\d+)LL: return (-?\d+)LL;", body.group(1))}
    return cells, int(body.group(2))


def _helper(src: str, root: str, kind: str):
    """The emitted helper `ag_<kind>_<root>` emulated over the printed table."""
    cells, default = _table(src, root)
    es = int(re.search(rf"ag_{kind}_{root}\(i64 off, i64 n\) {{ for \(i64 j = 0; j < n; \+\+j\) "
                       rf"if \(ag_num_{root}\(off \+ j \* (\d+)LL\)", src).group(1))
    vals = lambda off, n: [cells.get(off + j * es, default) != 0 for j in range(n)]  # noqa: E731
    return (lambda off, n: int(all(vals(off, n)))) if kind == "all_of" else (lambda off, n: int(any(vals(off, n))))


@pytest.mark.parametrize("form", FORMS, ids=lambda f: "-".join(f))
def test_each_form_is_emitted_and_its_reference_computed(cases, form):
    kind, where, _ = form
    plain = [c for c in cases[form] if "[inputs of" not in c.func]
    assert plain and all(c.skip is None for c in plain), [(c.id, c.skip) for c in plain]
    src = plain[0].emitted.source
    if where == "global":
        assert re.search(rf"if \(ag_{kind}_BlockMask\w*\(\(i64\)\(", src)
        assert f"i64 ag_{kind}_BlockMask" in src and "i64 ag_num_BlockMask" in src
    elif where == "local":
        assert f"i64 ag_{kind}_reg(const i64* r, i64 n)" in src
        assert f"if (ag_{kind}_reg(&ag_reg_block_mask_local[" in src
    else:
        assert f"{kind} reads its 2 elements" in src
        assert f"1LL /* {kind} over shared" in src
        # the reference records the model's read of the range: one more read per test
        lines = {ln for r in plain[0].refs for t in r.reads for _, ln in t}
        for m in re.finditer(rf"// line (\d+): {kind} reads", src):
            assert int(m.group(1)) in lines


def test_without_a_witness_every_range_is_all_taken(cases):
    for (kind, where, arch), cs in cases.items():
        if where != "global":
            continue
        c = next(c for c in cs if "[inputs of" not in c.func)
        root = re.search(rf"i64 ag_{kind}_(\w+)\(i64 off, i64 n\)", c.emitted.source).group(1)
        cells, default = _table(c.emitted.source, root)
        assert not cells and default == 1   # every range true, as reference.AllTaken reads it


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
@pytest.mark.parametrize("form", FORMS, ids=lambda f: "-".join(f))
def test_the_skeleton_compiles(cases, form, tmp_path):
    for i, c in enumerate(cases[form]):
        if c.emitted is None:
            continue
        f = tmp_path / f"k{i}.cu"
        f.write_text(c.emitted.source)
        for arch in (("sm_80", "sm_90a") if form[2] == "sm_80" else ("sm_90a",)):   # Hopper PTX: sm_90a
            r = subprocess.run(["nvcc", f"-arch={arch}", "-c", "-o", str(tmp_path / f"k{i}_{arch}.o"), str(f)],
                               capture_output=True, text=True)
            assert r.returncode == 0, (c.id, arch, r.stderr[:2000])


def test_realise_ranges_gives_every_outcome():
    sizes = {"M": 1}
    want = {("M", 0, "all_of", 2): 0, ("M", 2, "all_of", 2): 1, ("M", 4, "any_of", 2): 0,
            ("M", 6, "any_of", 2): 1, ("M", 8, "all_of", 3): 0}
    cells = _realise_ranges({("M", 9): 0, **want}, sizes)
    assert cells[("M", 9)] == 0    # a plain cell the reference read keeps its value
    for (root, off, kind, n), v in want.items():
        vals = [cells.get((root, off + j), 1) != 0 for j in range(n)]
        assert (all(vals) if kind == "all_of" else any(vals)) == bool(v)
    with pytest.raises(EmitError):
        _realise_ranges({("M", 0, "all_of", 2): 1, ("M", 1, "any_of", 2): 0}, sizes)
    with pytest.raises(EmitError):
        _realise_ranges({("M", 0): 0, ("M", 0, "all_of", 1): 1}, sizes)


def _global(kind: str, arch: str = "sm_80"):
    path = CORPUS / NAME.format(kind=kind, where="global", arch=arch)
    func = parse(path.read_text()).functions[0]
    return path, func, elaborate(func)


@pytest.mark.parametrize("kind", ["all_of", "any_of"])
def test_a_witness_with_false_ranges_is_realised_by_the_table_and_the_reference(kind):
    path, func, program = _global(kind)
    # the range cells the plain run meets, by the names the checker gives them (a witness's)
    e = emit(func, program, "k_probe")
    met = reference.AllTaken()
    reference.compute(program, e, {}, inputs=met)
    ranges = [cell for cell in met.order if len(cell) == 4 and cell[2] == kind]
    assert len(ranges) >= 4, met.order
    falses = ranges[1::2]
    pattern = {met.names[cell]: 0 for cell in falses}
    c = Case(str(path), func.name + "[inputs of test]")
    _prepare_instance(c, func, program, {}, "k_witness", witness=({}, pattern))
    assert c.skip is None, c.skip
    src = c.emitted.source
    helper = _helper(src, re.search(rf"i64 ag_{kind}_(\w+)\(i64 off", src).group(1), kind)
    for root, off, k, n in ranges:
        assert helper(off, n) == (0 if (root, off, k, n) in falses else 1), (off, n)
    # the reference ran the same outcomes: fewer reads than with every range taken
    plain = Case(str(path), func.name)
    _prepare_instance(plain, func, program, {}, "k_plain")
    assert sum(map(len, c.refs[0].reads)) < sum(map(len, plain.refs[0].reads))


def test_the_reference_inputs_take_a_tied_cell():
    # engine/program.py asks a tied count root's cells (plain or range) with tied=True
    assert reference.AllTaken().value(("M", 0, "all_of", 2), "M[0:2] (all_of)", False, tied=True) == 1
    w = reference.WitnessInputs({"M[0:2] (all_of)": 0})
    assert w.value(("M", 0, "all_of", 2), "M[0:2] (all_of)", False, tied=True) == 0
    assert w.used == {("M", 0, "all_of", 2): 0}
