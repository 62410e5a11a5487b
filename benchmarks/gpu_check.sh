#!/usr/bin/env bash
# The CUDA check, for a machine with an NVIDIA GPU, CuPy and (optionally) PyTorch:
#
#   bash benchmarks/gpu_check.sh [TEXT_FILE]        (TEXT_FILE: e.g. Tiny Shakespeare)
#
#   1. the whole test suite with the CUDA device (MICROTORCH_TEST_DEVICE=cuda);
#   2. the first 50 losses of the shakespeare preset (dropout 0) on the CPU and on CUDA,
#      compared (target: equal to 1e-3); the CPU run goes on the host cores meanwhile;
#   3. bench_train.py --device cuda for the shakespeare preset, microtorch vs PyTorch CUDA;
#   4. with GPU_TRAIN_SECONDS=N (default 0): a shakespeare-preset training run stopped after
#      N seconds (it saves a checkpoint on SIGTERM), for the val loss and tokens/s reached.
#
# Each step has a time limit so that the whole check ends within about 8 minutes plus N.
# Logs and JSON go to $GPU_CHECK_OUT (default gpu_check_out/). A short table comes last.
# GPU_CHECK_STEPS="tests match bench train" (the default, all four) picks steps, e.g. for a
# rerun of only what failed. GPU_CHECK_PRESET=tiny (default shakespeare) and GPU_CHECK_MATCH_ITERS=3 (default 50) make
# steps 2-4 small. With PYTHONPATH=tests/fake_cupy/as_cupy as well, the check runs on a
# machine without a GPU (CuPy faked, kernels on the CPU): a dry run of this script.
set -u
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
DATA=${1:-python-docs}
OUT=${GPU_CHECK_OUT:-gpu_check_out}
TRAIN_SECONDS=${GPU_TRAIN_SECONDS:-0}
PRESET=${GPU_CHECK_PRESET:-shakespeare}
ITERS=${GPU_CHECK_MATCH_ITERS:-50}
STEPS=" ${GPU_CHECK_STEPS:-tests match bench train} "
want() { [[ "$STEPS" == *" $1 "* ]]; }
tests_rc=skipped match_rc=skipped bench_rc=skipped train_rc=skipped
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1

echo "== machine"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
$PY -c "import sys, numpy, cupy; print('python', sys.version.split()[0], '| numpy', numpy.__version__, '| cupy', cupy.__version__)"
$PY -c "import torch; print('torch', torch.__version__, '| cuda', torch.version.cuda)" 2>/dev/null || echo "torch: not installed"

if want match; then
    echo "== 2a. CPU reference losses (background, on the host cores)"
    OMP_NUM_THREADS=8 OPENBLAS_NUM_THREADS=8 timeout 420 $PY benchmarks/cuda_cpu_match.py \
        --device cpu --preset "$PRESET" --iters "$ITERS" --data "$DATA" \
        --json "$OUT/losses_cpu.json" > "$OUT/match_cpu.log" 2>&1 &
    cpu_pid=$!
fi

if want tests; then
    echo "== 1. test suite on CUDA"
    xdist=""
    $PY -c "import xdist" 2>/dev/null && xdist="-n 6"
    MICROTORCH_TEST_DEVICE=cuda timeout 300 $PY -m pytest tests -q -rfE -p no:cacheprovider $xdist \
        > "$OUT/tests.log" 2>&1
    tests_rc=$?
    tail -n 25 "$OUT/tests.log"
fi

if want match; then
    echo "== 2b. CUDA losses"
    timeout 120 $PY benchmarks/cuda_cpu_match.py --device cuda --preset "$PRESET" \
        --iters "$ITERS" --data "$DATA" --json "$OUT/losses_cuda.json" 2>&1 | tail -n 3
    wait $cpu_pid
    tail -n 2 "$OUT/match_cpu.log"
    $PY benchmarks/cuda_cpu_match.py --compare "$OUT/losses_cpu.json" "$OUT/losses_cuda.json" \
        > "$OUT/match.txt" 2>&1
    match_rc=$?
    cat "$OUT/match.txt"
fi

if want bench; then
    echo "== 3. training step, microtorch vs PyTorch CUDA ($PRESET preset)"
    timeout 240 $PY benchmarks/bench_train.py --device cuda --preset "$PRESET" --repeats 3 \
        --json "$OUT/bench_cuda.json" > "$OUT/bench.log" 2>&1
    bench_rc=$?
    tail -n 20 "$OUT/bench.log"
fi

if want train && [ "$TRAIN_SECONDS" -gt 0 ]; then
    echo "== 4. $PRESET preset training for ${TRAIN_SECONDS}s"
    timeout -s TERM "$TRAIN_SECONDS" $PY -m models.train --preset "$PRESET" --device cuda \
        --data "$DATA" --out "$OUT/run" --eval-iters 20 > "$OUT/train.log" 2>&1
    train_rc=$?
    tail -n 8 "$OUT/train.log"
fi

echo
echo "== summary"
line() { printf '%-34s %s\n' "$1" "$2"; }
[ "$tests_rc" != skipped ] &&
    line "test suite on CUDA (rc)" "$tests_rc: $(grep -E '(passed|failed)' "$OUT/tests.log" | tail -n 1)"
[ "$match_rc" != skipped ] &&
    line "CPU vs CUDA first $ITERS losses (rc)" "$match_rc: $(tail -n 1 "$OUT/match.txt")"
[ "$bench_rc" != skipped ] &&
    line "bench_train $PRESET (rc)" "$bench_rc: $(grep -E 'microtorch/PyTorch' "$OUT/bench.log" | tail -n 1)"
[ "$train_rc" != skipped ] &&
    line "training run (rc)" "$train_rc: $(tail -n 1 "$OUT/run/metrics.jsonl" 2>/dev/null)"
exit 0
