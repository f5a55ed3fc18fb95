#!/bin/sh
# The GPU runs behind docs/sanitizer-gate.md. In the repository root of a GPU machine:
#
#   sh bench/sanitizer_run.sh PART [PART...]
#
#   corpus       corpus/real, corpus/handwritten, corpus/resources and tests/gate_kernels, --replay
#   field        the field corpus ($FIELD, default field-out/: TileLang's own examples), --replay
#   variantsKofN every N-th file of corpus/variants starting at the K-th (variants1of2,
#                variants2of2; variants1of4 ... variants4of4), --replay
#   repaired     every variant repaired by `fix` (gate-repaired/, made by bench/repair_variants.py --out)
#
# Each part is one `asyncguard sanitize` run: its JSON, JUnit and printed report go to
# $OUT/gate_PART.{json,xml,log}, and the wall time to $OUT/gate_PART.time; with PACK=DIR each
# finished part is also packed into DIR/gate_PART.tgz at once (a device machine returns at most 8
# files, and a run cut off at its time limit keeps the parts already finished). GPUS (default 0:
# all visible) sets --gpus; JOBS (default nproc) the preparing/compiling and sanitizer
# processes; BATCH (default 8) the kernels per compute-sanitizer process; SAN_TIMEOUT (default
# 60) the seconds per kernel under a tool. The tables:
#   python3 bench/sanitizer_table.py --doc $OUT
OUT=${OUT:-gate-results}
JOBS=${JOBS:-$(nproc)}
BATCH=${BATCH:-8}
GPUS=${GPUS:-0}
FIELD=${FIELD:-field-out}
mkdir -p "$OUT"
if [ -n "$PACK" ]; then mkdir -p "$PACK" && PACK=$(cd "$PACK" && pwd); fi
gate() {   # name, then arguments
    name=$1; shift
    start=$(date +%s)
    python3 -m asyncguard sanitize --jobs "$JOBS" --sanitizer-jobs "$JOBS" --sanitizer-batch "$BATCH" \
        --sanitizer-timeout "${SAN_TIMEOUT:-60}" \
        --gpus "$GPUS" --json "$OUT/gate_$name.json" --junit "$OUT/gate_$name.xml" "$@" \
        > "$OUT/gate_$name.log" 2>&1
    rc=$?
    end=$(date +%s)
    echo "$name $((end - start)) s, exit $rc, GPUS=$GPUS JOBS=$JOBS BATCH=$BATCH" | tee "$OUT/gate_$name.time"
    grep -E "kernel\(s\) in|FAULT|Traceback" "$OUT/gate_$name.log" | head -20
    if [ -n "$PACK" ]; then
        (cd "$OUT" && tar czf "$PACK/gate_$name.tgz" $(ls "gate_$name.json" "gate_$name.xml" "gate_$name.log" \
            "gate_$name.time" 2>/dev/null))
    fi
}
variants() {   # every N-th variant file starting at the K-th
    ls corpus/variants/*.tir | awk -v k="$1" -v n="$2" 'NR % n == k % n'
}
for part in "$@"; do
    case "$part" in
    corpus)    gate corpus --replay corpus/real corpus/handwritten corpus/resources tests/gate_kernels ;;
    field)     if [ -d "$FIELD" ]; then gate field --replay --prepare-timeout 120 "$FIELD"; else echo "field: no $FIELD directory" >&2; fi ;;
    variants*of*)
        k=${part#variants}; k=${k%of*}; n=${part#*of}
        gate "$part" --replay $(variants "$k" "$n") ;;
    repaired)  gate repaired gate-repaired ;;
    *) echo "usage: sh bench/sanitizer_run.sh corpus|field|variantsKofN|repaired ..." >&2; exit 2 ;;
    esac
done
