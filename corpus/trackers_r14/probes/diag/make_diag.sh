#!/bin/bash
# DIAGNOSTIC ONLY, not corpus pairs (no upstream change, edited compiler output): the tileops1574 corpus files and
# the tileops1550 files of ../dup_tileops1550/ with the persistent scheduler's data-dependent values made concrete, to see what asyncguard reports once the
# AG001 "unknown" on them is out of the way. Edits (sed, identical in all three): every expert has 128 rows
# (true_sizes[e] -> 128, true_offsets[e] -> e * 128), so s_cum[e] = e and s_total = 4 tiles; the shared loads of
# s_total and s_cum are replaced by those values (asyncguard does not carry values through shared memory). With
# sm_count 2 each CTA runs waves 0 and 1 with full tiles (the TMA-store fast path), waves 2..4 skip.
set -e
# AG_SRC (optional): as in ../run_all.sh (this round: AG_SRC=/tmp/r14/ag_HEAD, the git archive of HEAD).
P=$(cd "$(dirname "$0")" && pwd); D=$(dirname "$(dirname "$P")")
for f in tileops1550_3wg_grouped_gemm_next_wave_stmatrix_over_inflight_tma_store_sm90a \
         tileops1550_3wg_grouped_gemm_next_wave_stmatrix_over_inflight_tma_store_sm90a_fixed \
         tileops1574_3wg_grouped_gemm_stmatrix_then_tma_store_no_barrier_sm90a \
         tileops1574_3wg_grouped_gemm_stmatrix_then_tma_store_no_barrier_sm90a_fixed; do
  src="$D/$f.tir"; [ -f "$src" ] || src="$D/probes/dup_tileops1550/$f.tir"
  sed -e 's/true_sizes_1\[e\]/128/; s/true_sizes_1\[T.Cast("int64", expert_id)\]/128/' \
      -e 's/true_offsets_1\[ex_1\[T.int64(0)\]\]/ex_1[T.int64(0)] * 128/; s/true_offsets_1\[T.Cast("int64", expert_id)\]/expert_id * 128/' \
      -e 's/total: T.int32 = s_total_1\[0\]/total: T.int32 = 4/; s/s_cum_1\[T.Cast("int64", mid) + T.int64(1)\]/(mid + 1)/' \
      -e 's/s_cum_1\[T.Cast("int64", expert_id)\]/expert_id/; s/s_cum_1\[ex_1\[T.int64(0)\]\]/ex_1[T.int64(0)]/' \
      "$src" > "$P/$f.diag.tir"
  echo "===== $f.diag.tir"
  rc=0; (cd /tmp && PYTHONPATH=${AG_SRC:-} nice -n 10 python -m asyncguard check --no-cache "$P/$f.diag.tir" 2>&1) || rc=$?
  echo "exit status: $rc"
done > "$P/DIAG_RESULTS.txt"
# tileops1903: every call_extern of the kernel's _fp8_gqa_helper.h (tl::fp8_*: the V TMA load, the in-place V
# transpose, the PV product, the accumulator zeroing and the epilogue stores) and the expect_tx on v_raw_full (whose
# bytes that extern TMA load delivered) replaced by T.evaluate(0), so only the barrier protocol is left to check.
for f in tileops1903_fp8_gqa_ws_one_v_full_barrier_for_two_v_buffers_phase_wrap_sm90a \
         tileops1903_fp8_gqa_ws_one_v_full_barrier_for_two_v_buffers_phase_wrap_sm90a_fixed; do
  sed -E -e 's/T\.call_extern\("handle", "tl::fp8_[^"]*".*$/T.evaluate(0)/' \
      -e 's/T\.mbarrier_expect_tx\(v_raw_full_1\[0\], 28672\)/T.evaluate(0)/' "$D/$f.tir" > "$P/$f.diag.tir"
  echo "===== $f.diag.tir"
  rc=0; (cd /tmp && PYTHONPATH=${AG_SRC:-} nice -n 10 python -m asyncguard check --no-cache "$P/$f.diag.tir" 2>&1) || rc=$?
  echo "exit status: $rc"
done >> "$P/DIAG_RESULTS.txt"
# tileops1405: the varlen metadata made concrete: cu_seqlens_q = cu_seqlens_k = [0, 256, 512] (q_start = kv_start =
# bz * 256, q_len = kv_len = 256) and max_seqlen_q = 256 (grid x = 2).
for f in tileops1405_gqa_sw_varlen_fwd_stmatrix_o_shared_then_generic_reads_no_barrier_tl019_sm90a \
         tileops1405_gqa_sw_varlen_fwd_stmatrix_o_shared_then_generic_reads_no_barrier_tl019_sm90a_fixed; do
  sed -e 's/cu_seqlens_q_2\[bz + 1\] - q_start/256/; s/cu_seqlens_k_2\[bz + 1\] - kv_start/256/' \
      -e 's/cu_seqlens_q_2\[bz\]/bz * 256/; s/cu_seqlens_k_2\[bz\]/bz * 256/; s/(max_seqlen_q + 127) \/\/ 128/2/g' \
      "$D/$f.tir" > "$P/$f.diag.tir"
  echo "===== $f.diag.tir"
  rc=0; (cd /tmp && PYTHONPATH=${AG_SRC:-} nice -n 10 python -m asyncguard check --no-cache "$P/$f.diag.tir" 2>&1) || rc=$?
  echo "exit status: $rc"
done >> "$P/DIAG_RESULTS.txt"
