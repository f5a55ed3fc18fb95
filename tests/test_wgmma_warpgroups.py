"""A wgmma statement run by several warpgroups is one operation per warpgroup (models/wgmma.py).

Each warpgroup's `warpgroup_wait` completes its own wgmma-groups only (PTX ISA, wgmma.commit_group /
wait_group: a wgmma-group per warpgroup). Until the twenty-third session one record stood for the
whole statement and a wait in either warpgroup completed it, so a refill of a stage by one
warpgroup after its own wait, while the other's wgmma still read the stage, was missed: NVIDIA/
Fuser#3865 and triton-lang/triton#11047 (corpus/trackers_new) came back clean, and two barriers of
the 256-thread Hopper flash attention were filed as redundant (corpus/variants, drop-barrier L146
and L189: AG402 now)."""
from pathlib import Path

import numpy as np

from asyncguard.analyze import check_text
from asyncguard.models.wgmma import by_warpgroup

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def test_warpgroups_of_a_cta_and_of_a_cluster():
    tids = np.arange(256, dtype=np.int64)
    assert [np.flatnonzero(s).tolist()[::127] for s in by_warpgroup(tids, 256)] == [[0, 127], [128, 255]]
    assert by_warpgroup(np.arange(128, 256, dtype=np.int64), 256) == [None]
    # 2 CTAs of 192 threads: machine thread t is thread t % 192 of CTA t // 192
    groups = [tids_of.tolist() for tids_of in (np.arange(384)[s] for s in by_warpgroup(np.arange(384), 192))]
    assert [(g[0], g[-1]) for g in groups] == [(0, 127), (128, 191), (192, 319), (320, 383)]


def test_a_wait_completes_its_own_warpgroups_wgmma_only():
    """The Hopper flash attention (256 threads, two consumer warpgroups, no warp specialization)
    without the barrier between its K wgmma's wait and the next cp.async into K_shared."""
    tir = CORPUS / "variants" / "fa_fwd_sm90a_nows_s2_128x128_t256__drop-barrier_L146.tir"
    rep = check_text(tir.read_text(), str(tir))
    (f,) = rep.findings
    assert (f.rule.code, f.line) == ("AG402", 147)
    assert "issued by thread 0's warpgroup" in f.message and "thread 128 writes" in f.message
    original = CORPUS / "real" / "fa_fwd_sm90a_nows_s2_128x128_t256.tir"
    assert check_text(original.read_text(), str(original)).verdict == "clean"
