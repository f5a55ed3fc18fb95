#!/bin/sh
# The GPU runs behind docs/sanitizer-gate.md. In the repository root of a GPU machine:
#
#   sh bench/sanitizer_run.sh PART [PART...]
#
#   corpus     corpus/real, corpus/handwritten, corpus/resources and tests/gate_kernels, with --replay
#   field      the field corpus ($FIELD, default field-out/: TileLang's own examples), with --replay
#   variants1  every other file of corpus/variants (the 1st, 3rd, ...), with --replay
#   variants2  the others
#   repaired   every variant repaired by `fix` (gate-repaired/, made by bench/repair_variants.py --out)
#
# Each part is one `asyncguard sanitize` run: its JSON, JUnit and printed report go to
# $OUT/gate_PART.{json,xml,log}, and the wall time to $OUT/gate_PART.time. GPUS (default: all
# visible) sets --gpus; JOBS (default nproc) the preparing/compiling processes and sanitizer
# processes; BATCH (default 8) the kernels per compute-sanitizer process. The tables:
#   python3 bench/sanitizer_table.py --doc $OUT
OUT=${OUT:-gate-results}
JOBS=${JOBS:-$(nproc)}
BATCH=${BATCH:-8}
GPUS=${GPUS:-0}
FIELD=${FIELD:-field-out}
mkdir -p "$OUT"
gate() {   # name, then arguments
    name=$1; shift
    start=$(date +%s)
    python3 -m asyncguard sanitize --jobs "$JOBS" --sanitizer-jobs "$JOBS" --sanitizer-batch "$BATCH" \
        --gpus "$GPUS" --json "$OUT/gate_$name.json" --junit "$OUT/gate_$name.xml" "$@" \
        > "$OUT/gate_$name.log" 2>&1
    rc=$?
    end=$(date +%s)
    echo "$name $((end - start)) s, exit $rc, GPUS=$GPUS JOBS=$JOBS BATCH=$BATCH" | tee "$OUT/gate_$name.time"
    grep -E "kernel\(s\) in|FAULT|Traceback" "$OUT/gate_$name.log" | head -20
}
variants() {   # every other variant file, starting at the first (1) or second (2)
    ls corpus/variants/*.tir | awk -v k="$1" 'NR % 2 == k % 2'
}
for part in "$@"; do
    case "$part" in
    corpus)    gate corpus --replay corpus/real corpus/handwritten corpus/resources tests/gate_kernels ;;
    field)     if [ -d "$FIELD" ]; then gate field --replay --prepare-timeout 120 "$FIELD"; else echo "field: no $FIELD directory" >&2; fi ;;
    variants1) gate variants1 --replay $(variants 1) ;;
    variants2) gate variants2 --replay $(variants 2) ;;
    repaired)  gate repaired gate-repaired ;;
    *) echo "usage: sh bench/sanitizer_run.sh corpus|field|variants1|variants2|repaired ..." >&2; exit 2 ;;
    esac
done
