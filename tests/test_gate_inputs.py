"""The sanitizer gate launches kernels that load numbers (varlen cu_seqlens) with the values the
checker's run of that size read, and launches a finding's witness inputs (an empty block-mask row,
an empty key sequence) as one more case (emit/prepare.py launch_numbers, witness_inputs). CPU
only: the skeletons and references, not the launches."""
from pathlib import Path

from asyncguard.emit.prepare import prepare

ROOT = Path(__file__).resolve().parent.parent / "corpus"
VARLEN = ROOT / "field_sizes" / ("flash_attention__example_mha_fwd_varlen__b2_h4_s512_d64_b128x64_s2_t256_"
                                 "causal__flashattn__sm_90a.tir")
SPARSE = ROOT / "field" / "blocksparse_attention__example_tilelang_block_sparse_attn__blocksparse_flashattn__sm_90a.tir"


def cases(path: Path) -> dict:
    return {c.id.split("::", 1)[1]: c for c in prepare([str(path)])}


def test_a_varlen_kernel_is_launched_with_the_numbers_its_checking_run_read():
    got = cases(VARLEN)
    empty = got["main_kernel[max_seqlen_q=1,trips(line 65)=0]"]
    assert empty.skip is None and empty.emitted is not None
    src = empty.emitted.source
    # cu_seqlens_k: 0, 0 (no key); the loads read the table, not global memory
    assert "ag_num_cu_seqlens_k(i64 off) { switch (off) { case 0LL: return 0LL; case 4LL: return 0LL;" in src
    assert "v_kv_end_idx = (i64)(ag_num_cu_seqlens_k(" in src
    # the epilogue's guards the checker reads as taken are taken in the skeleton too
    assert "if (1)" in src
    # the longest trip count the gate launches (gate_sizes: the checker's values up to 256 trips)
    trips = {int(k.split("trips(line 65)=")[1].rstrip("]")): k for k in got if "trips(line 65)=" in k}
    longer = got[trips[max(trips)]]
    assert longer.skip is None
    assert sum(len(r) for r in longer.refs[0].reads) > sum(len(r) for r in empty.refs[0].reads)


def test_a_block_mask_witness_is_launched_with_its_zeros():
    got = cases(SPARSE)
    plain = got["blocksparse_flashattn_kernel"]
    witness = next(c for k, c in got.items() if k.startswith("blocksparse_flashattn_kernel[inputs of AG401"))
    assert plain.skip is None and witness.skip is None
    assert "ag_num_" not in plain.emitted.source          # every mask value taken: printed as 1
    assert "case 0LL: return 0LL;" in witness.emitted.source   # BlockSparseMask[0] = 0
    assert witness.plan["blocks"] == [[0, 0, 0]]
    # the empty row's consumers skip the masked work: fewer reads than with every value taken
    assert sum(map(len, witness.refs[0].reads)) < sum(map(len, plain.refs[0].reads))


def test_a_varlen_kernels_witness_replay_is_emitted_with_its_numbers():
    replayed = prepare([str(VARLEN)], replay=True)
    empty = next(c for c in replayed if c.id.endswith("trips(line 65)=0]"))
    sources = [r["source"] for r in empty.replays if r.get("source")]
    assert sources and all("ag_num_cu_seqlens_k" in src for src in sources)


def test_a_plain_mask_copy_read_as_truth_values_is_launched_too():
    # SeerAttention copies BlockSparseMask into a register without a bool cast; every read asks
    # `!= 0`, so the engine reads truth values and the skeleton prints them (its witness's zeros)
    seer = ROOT / "field" / "seer_attention__block_sparse_attn_tilelang__blocksparse_flashattn__sm_90a.tir"
    got = cases(seer)
    assert all(c.skip is None for c in got.values()), {k: c.skip for k, c in got.items()}
    witness = next(c for k, c in got.items() if "[inputs of AG401" in k)
    assert "case 0LL: return 0LL;" in witness.emitted.source
