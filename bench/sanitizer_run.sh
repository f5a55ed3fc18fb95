#!/bin/sh
# The GPU runs behind docs/sanitizer-gate.md. In the repository root of a GPU machine:
#
#   sh bench/sanitizer_run.sh PART [PART...]
#
#   corpus       corpus/real, corpus/handwritten, corpus/resources and tests/gate_kernels, --replay
#   gpus1        the same kernels on one GPU (--gpus 1): the 1-vs-2-GPU figure (issue 17); its rows
#                must equal corpus's (python3 bench/sanitizer_table.py --same)
#   ag417        the kernels whose expect file names AG417 (reads of never-written bytes), alone,
#                --replay, with the skeletons and sanitizer logs kept (gate_ag417_keep/)
#   field        the whole field corpus ($FIELD, default corpus/field: TileLang's own examples)
#   fieldKofN    every N-th field file starting at the K-th (field1of2, field2of2)
#   variantsKofN every N-th file of corpus/variants starting at the K-th (variants1of4 ...
#                variants4of4), --replay
#   repaired     every variant repaired by `fix` (gate-repaired/, made by bench/repair_variants.py --out)
#   PART@1       any part on one GPU (--gpus 1), written as gate_PART_gpus1.*: the one-GPU figure
#                of issues 15/17 is gpus1 (the corpus on one GPU) plus variants1of2@1 and variants2of2@1
#
# Each part is one `asyncguard sanitize` run, cut at PART_LIMIT seconds (default 540: a device
# command may run 600). Its JSON, JUnit and printed report go to $GATE_DIR/gate_PART.{json,xml,log}
# (default gate-results/; not $OUT, which device machines set for the files they return), the
# wall time and exit status to gate_PART.time. With PACK=DIR each part is packed into
# DIR/gate_PART.tgz as soon as it ends (a device machine returns at most 8 files, and a run cut
# off keeps the parts already packed). GPUS (default 0: all visible) sets --gpus (gpus1: 1);
# JOBS (default nproc) the preparing and compiling processes; SAN_JOBS (default 16) the
# compute-sanitizer processes at once; BATCH (default 8) kernels per compute-sanitizer
# process; SAN_TIMEOUT (default 60) the seconds per kernel under a tool; LAUNCHERS (default 2)
# the launcher processes per GPU. END_BY (seconds, default 0: none) cuts every part so that the
# whole command ends that many seconds after it started (several parts in one device command of
# 600 s: END_BY=550). The tables:
#   python3 bench/sanitizer_table.py --doc $GATE_DIR
DIR=${GATE_DIR:-gate-results}
JOBS=${JOBS:-$(nproc)}
SAN_JOBS=${SAN_JOBS:-16}
BATCH=${BATCH:-8}
GPUS=${GPUS:-0}
FIELD=${FIELD:-corpus/field}
PART_LIMIT=${PART_LIMIT:-540}
LAUNCHERS=${LAUNCHERS:-2}
END_BY=${END_BY:-0}
T0=$(date +%s)
mkdir -p "$DIR"
if [ -n "$PACK" ]; then mkdir -p "$PACK" && PACK=$(cd "$PACK" && pwd); fi
gate() {   # name, GPUs, then arguments
    name=$1; gpus=$2; shift 2
    if [ "$ONE_GPU" = 1 ]; then name="${name}_gpus1"; gpus=1; fi
    start=$(date +%s)
    limit=$PART_LIMIT
    if [ "$END_BY" -gt 0 ]; then
        left=$((END_BY - (start - T0)))
        if [ "$left" -lt "$limit" ]; then limit=$left; fi
        if [ "$limit" -lt 30 ]; then echo "$name not run: END_BY=$END_BY s reached" | tee "$DIR/gate_$name.skipped"; return; fi
    fi
    PYTHONUNBUFFERED=1 timeout -k 15 "$limit" python3 -m asyncguard sanitize --jobs "$JOBS" \
        --sanitizer-jobs "$SAN_JOBS" --sanitizer-batch "$BATCH" --sanitizer-timeout "${SAN_TIMEOUT:-60}" \
        --launchers-per-gpu "$LAUNCHERS" \
        --gpus "$gpus" --json "$DIR/gate_$name.json" --junit "$DIR/gate_$name.xml" "$@" \
        > "$DIR/gate_$name.log" 2>&1
    rc=$?
    end=$(date +%s)
    cut=""
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then cut=" (cut at PART_LIMIT=$limit s)"; fi
    echo "$name $((end - start)) s, exit $rc$cut, GPUS=$gpus JOBS=$JOBS SAN_JOBS=$SAN_JOBS BATCH=$BATCH LAUNCHERS=$LAUNCHERS" \
        | tee "$DIR/gate_$name.time"
    # the phases' times (what the output tail of a device command shows), and the faults
    grep -E "prepared in|compiled in|launch\(es\) in|replay\(s\) to run|sanitizer checks|kernel\(s\) in|Traceback" \
        "$DIR/gate_$name.log" | head -20
    echo "$name: $(grep -c FAULT "$DIR/gate_$name.log") launch fault(s)"
    if [ -n "$PACK" ]; then
        (cd "$DIR" && tar czf "$PACK/gate_$name.tgz" $(ls -d "gate_$name.json" "gate_$name.xml" \
            "gate_$name.log" "gate_$name.time" "gate_${name}_keep" 2>/dev/null))
    fi
}
every() {   # every N-th of the files on stdin, starting at the K-th
    awk -v k="$1" -v n="$2" 'NR % n == k % n'
}
CORPUS="corpus/real corpus/handwritten corpus/resources tests/gate_kernels"
for part in "$@"; do
    ONE_GPU=0
    case "$part" in *@1) ONE_GPU=1; part=${part%@1} ;; esac
    case "$part" in
    corpus)    gate corpus "$GPUS" --replay $CORPUS ;;
    gpus1)     ONE_GPU=1; gate corpus 1 --replay $CORPUS ;;
    ag417)     files=$(grep -l '"AG417"' corpus/*/*.expect.json | sed 's/\.expect\.json$/.tir/')
               gate ag417 "$GPUS" --replay --keep "$DIR/gate_ag417_keep" $files ;;
    field)     gate field "$GPUS" --replay --prepare-timeout 120 "$FIELD" ;;
    field*of*)   # 120 s per file: deepseek_mla decode_ws's static check alone takes 50 s on one core
        k=${part#field}; k=${k%of*}; n=${part#*of}
        gate "$part" "$GPUS" --replay --prepare-timeout 120 $(ls "$FIELD"/*.tir | every "$k" "$n") ;;
    variants*of*)
        k=${part#variants}; k=${k%of*}; n=${part#*of}
        gate "$part" "$GPUS" --replay $(ls corpus/variants/*.tir | every "$k" "$n") ;;
    repaired)  gate repaired "$GPUS" gate-repaired ;;
    *) echo "usage: sh bench/sanitizer_run.sh corpus|gpus1|ag417|field|fieldKofN|variantsKofN|repaired[@1] ..." >&2
       exit 2 ;;
    esac
done
