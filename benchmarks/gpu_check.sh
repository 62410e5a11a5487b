#!/usr/bin/env bash
# The CUDA check, for a machine with an NVIDIA GPU, CuPy and (optionally) PyTorch:
#
#   bash benchmarks/gpu_check.sh [TEXT_FILE]        (TEXT_FILE: e.g. Tiny Shakespeare)
#
#   1. the whole test suite with the CUDA device (MICROTORCH_TEST_DEVICE=cuda);
#   2. the first 50 losses of the shakespeare preset (dropout 0) on the CPU and on CUDA,
#      compared (target: equal to 1e-3); the CPU run goes on the host cores meanwhile;
#   3. bench_train.py --device cuda for the shakespeare preset, microtorch vs PyTorch CUDA;
#   4. a shakespeare-preset training run with the time that is left: the val loss and
#      tokens/s reached, and the time 5000 iterations would take at that speed. Stopped, it
#      saves a checkpoint; the next check with the same $GPU_CHECK_OUT goes on from there.
#
# The whole check ends within GPU_CHECK_BUDGET seconds (default 480: 8 minutes). Each step
# has its own limit, cut down when less time is left than the later steps need, so the
# summary table always comes last. GPU_TRAIN_SECONDS=N gives step 4 at most N seconds
# (0 skips it; default: all the time that is left).
# Logs and JSON go to $GPU_CHECK_OUT (default gpu_check_out/). GPU_CHECK_STEPS="tests match
# bench train" (the default, all four) picks steps, e.g. for a rerun of only what failed.
# GPU_CHECK_PRESET=tiny (default shakespeare) and GPU_CHECK_MATCH_ITERS=3 (default 50) make
# steps 2-4 small. With PYTHONPATH=tests/fake_cupy/as_cupy as well, the check runs on a
# machine without a GPU (CuPy faked, kernels on the CPU): a dry run of this script.
set -u
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
DATA=${1:-python-docs}
OUT=${GPU_CHECK_OUT:-gpu_check_out}
BUDGET=${GPU_CHECK_BUDGET:-480}
TRAIN_SECONDS=${GPU_TRAIN_SECONDS:-}
PRESET=${GPU_CHECK_PRESET:-shakespeare}
ITERS=${GPU_CHECK_MATCH_ITERS:-50}
STEPS=" ${GPU_CHECK_STEPS:-tests match bench train} "
want() { [[ "$STEPS" == *" $1 "* ]]; }
[ "${TRAIN_SECONDS:-1}" = 0 ] && STEPS=${STEPS/ train / }
tests_rc=skipped match_rc=skipped bench_rc=skipped train_rc=skipped
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1

# Seconds a step may take: its own limit ($1), or less when the time left in the budget,
# minus what the steps after it need ($2) and 15 s for the summary, is smaller.
limit() {
    local left=$((BUDGET - SECONDS - $2 - 15))
    echo $(($1 < left ? $1 : left))
}
over() { echo "   skipped: only ${1}s of the ${BUDGET}s budget left for it"; }
# the time kept for the steps after each one (the training run takes what is left)
after_tests=$( (want match && echo 60) || echo 0)
after_match=$( (want bench && echo 150) || echo 0)

echo "== machine (budget ${BUDGET}s)"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
$PY -c "import sys, numpy, cupy; print('python', sys.version.split()[0], '| numpy', numpy.__version__, '| cupy', cupy.__version__)"
$PY -c "import torch; print('torch', torch.__version__, '| cuda', torch.version.cuda)" 2>/dev/null || echo "torch: not installed"

if want match; then
    echo "== 2a. CPU reference losses (background, on the host cores)"
    OMP_NUM_THREADS=6 OPENBLAS_NUM_THREADS=6 timeout 420 $PY benchmarks/cuda_cpu_match.py \
        --device cpu --preset "$PRESET" --iters "$ITERS" --data "$DATA" \
        --json "$OUT/losses_cpu.json" > "$OUT/match_cpu.log" 2>&1 &
    cpu_pid=$!
fi

if want tests; then
    t=$(limit 300 $((after_tests + after_match)))
    echo "== 1. test suite on CUDA (limit ${t}s)"
    xdist=""
    $PY -c "import xdist" 2>/dev/null && xdist="-n 8"
    if [ "$t" -ge 30 ]; then
        # -v: each result is logged as it comes, so a run cut short still names its failures
        MICROTORCH_TEST_DEVICE=cuda timeout "$t" $PY -m pytest tests -v -rfE \
            -p no:cacheprovider $xdist > "$OUT/tests.log" 2>&1
        tests_rc=$?
        # failures: pytest's closing summary, or (cut short) the results logged so far
        grep -E "^(FAILED|ERROR) " "$OUT/tests.log" | head -n 40 | grep . ||
            grep -E " (FAILED|ERROR)( |$)" "$OUT/tests.log" | grep -oE "tests/[^ ]+" |
            sed 's/^/FAILED or ERROR: /' | sort -u | head -n 40
        tail -n 1 "$OUT/tests.log"
    else
        over "$t"
    fi
fi

if want match; then
    t=$(limit 120 "$after_match")
    echo "== 2b. CUDA losses (limit ${t}s)"
    [ "$t" -ge 10 ] && timeout "$t" $PY benchmarks/cuda_cpu_match.py --device cuda --preset "$PRESET" \
        --iters "$ITERS" --data "$DATA" --json "$OUT/losses_cuda.json" 2>&1 | tail -n 3
    t=$(limit 420 "$after_match")
    [ "$t" -gt 0 ] && timeout "$t" tail --pid="$cpu_pid" -f /dev/null  # wait, at most t s
    kill "$cpu_pid" 2>/dev/null
    tail -n 2 "$OUT/match_cpu.log"
    $PY benchmarks/cuda_cpu_match.py --compare "$OUT/losses_cpu.json" "$OUT/losses_cuda.json" \
        > "$OUT/match.txt" 2>&1
    match_rc=$?
    cat "$OUT/match.txt"
fi

if want bench; then
    t=$(limit 240 0)
    echo "== 3. training step, microtorch vs PyTorch CUDA ($PRESET preset, limit ${t}s)"
    if [ "$t" -ge 30 ]; then
        timeout "$t" $PY benchmarks/bench_train.py --device cuda --preset "$PRESET" --repeats 3 \
            --json "$OUT/bench_cuda.json" > "$OUT/bench.log" 2>&1
        bench_rc=$?
        tail -n 20 "$OUT/bench.log"
    else
        over "$t"
    fi
fi

if want train; then
    t=$(limit "${TRAIN_SECONDS:-100000}" 30)  # 30 s kept for it to stop and save
    echo "== 4. $PRESET preset training (limit ${t}s)"
    resume=""  # a run stopped by an earlier check goes on from its checkpoint
    [ -f "$OUT/run/latest.pt" ] && resume="--resume" && echo "   (resuming $OUT/run)"
    if [ "$t" -ge 30 ]; then
        timeout -s TERM -k 30 "$t" $PY -m models.train --preset "$PRESET" --device cuda \
            --data "$DATA" --out "$OUT/run" --eval-iters 20 $resume >> "$OUT/train.log" 2>&1
        train_rc=$?
        tail -n 8 "$OUT/train.log"
    else
        over "$t"
    fi
fi

echo
echo "== summary (${SECONDS}s)"
line() { printf '%-34s %s\n' "$1" "$2"; }
[ "$tests_rc" != skipped ] &&
    line "test suite on CUDA (rc)" "$tests_rc: $(if [ "$tests_rc" = 124 ]; then
        echo "cut short at its time limit; $(grep -cE ' (PASSED|FAILED|SKIPPED|ERROR)' \
            "$OUT/tests.log") results logged, the failures are listed above"
    else grep -E '(passed|failed)' "$OUT/tests.log" | tail -n 1; fi)"
[ "$match_rc" != skipped ] &&
    line "CPU vs CUDA first $ITERS losses (rc)" "$match_rc: $(tail -n 1 "$OUT/match.txt")"
[ "$bench_rc" != skipped ] &&
    line "bench_train $PRESET (rc)" "$bench_rc: $(grep -E 'microtorch/PyTorch' "$OUT/bench.log" ||
        echo "no table; workers done: $(grep -oE '(microtorch|torch) \.\.\. [0-9.]+ ms/step' \
            "$OUT/bench.log" | sed 's/ \.\.\.//' | paste -sd ';')")"
[ "$bench_rc" != skipped ] && grep -q "host time per step" "$OUT/bench.log" &&
    line "  host ms/step (launching the work)" "$(grep -oE 'microtorch [0-9.]+ ms.*' "$OUT/bench.log" |
        tail -n 1)"
[ "$train_rc" != skipped ] &&
    line "training run (rc)" "$train_rc: $($PY benchmarks/run_progress.py "$OUT/run" "$PRESET")"
exit 0
