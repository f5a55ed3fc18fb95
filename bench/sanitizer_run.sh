#!/bin/sh
# The H200 runs behind docs/sanitizer-gate.md. Usage (in the repository root, on a GPU machine):
#   sh bench/sanitizer_run.sh corpus    # corpus/real, handwritten, resources + the variant sample
#   sh bench/sanitizer_run.sh repaired  # every variant repaired by `fix` (made by:
#                                       #   python bench/repair_variants.py --out gate-repaired)
# Results (JSON, JUnit, the printed report) go to $OUT (default gate-results/); the table is
#   python bench/sanitizer_table.py $OUT/gate_*.json
OUT=${OUT:-gate-results}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"
gate() {   # name, then files
    name=$1; shift
    python3 -m asyncguard sanitize --jobs "$JOBS" --sanitizer-jobs "$JOBS" \
        --json "$OUT/gate_$name.json" --junit "$OUT/gate_$name.xml" "$@" > "$OUT/gate_$name.log" 2>&1
    echo "gate $name: exit $?"; tail -3 "$OUT/gate_$name.log"
}
case "$1" in
corpus)
    gate corpus corpus/real corpus/handwritten corpus/resources
    gate variants $(grep -v '^#' bench/sanitizer_variants.txt) ;;
repaired)
    gate repaired gate-repaired ;;
*)
    echo "usage: sh bench/sanitizer_run.sh corpus|repaired" >&2; exit 2 ;;
esac
