#!/usr/bin/env bash
# Named steps for a machine with an NVIDIA GPU and CUDA: builds with a CMake preset
# (default h200: sm_90; PRESET picks another), runs CTest label sets and benchmark steps,
# and archives every log in $OUT/gpu-logs.tgz with a one-page $OUT/gpu-logs-summary.txt.
#
# usage: scripts/gpu.sh STEP...
#   ctest:LABELS     ctest --preset $PRESET -L 'LABELS' (LABELS: cpu|gpu|fuzz|python|sanitize|dist, '|'-joined)
#   python           pip-installs the package for sm_90, then pytest tests/python (label python)
#   python-build | python-test   the same in two steps
#   lab | model | best | sweep[:DTYPES] | sweep-graph | host-overhead | sweep-torch | ttc[:DTYPES] | inplace[:KINDS] | dist | dist-torch |
#   ttc-torch:DTYPE | librett | librett-compare | baseline | fuzz | sanitizers | compare
#                    benchmarks and long checks (see the step functions below; docs/RESULTS.md names the step of each table)
# env: OUT (default /tmp/out), JOBS (default nproc), PRESET (default h200), STEP_TIMEOUT (s, default 300),
#      LOGS (log folder and archive name, default gpu-logs), NOBUILD=1 (reuse the build)
# exit: 0 when every step passed, else the number of failed steps.
# Optional folders (git-ignored):
#   .deps/hwy       Google Highway for the CPU backend, on a machine without libhwy-dev: scripts/carry-hwy.sh
#                   copies it there from a machine that has it
#   BASELINE=DIR    another source tree of xpose to compare `best` against (step baseline), e.g.
#                   `mkdir .baseline && git archive REV | tar -x -C .baseline` (the default DIR is .baseline)
#   .peers/librett  LibreTT's public source, for side-by-side measurement only (step librett)
# Several GPUs: one run per GPU after one build, e.g.
#   CUDA_VISIBLE_DEVICES=1 LOGS=g1 NOBUILD=1 scripts/gpu.sh ttc:f64 &
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
JOBS=${JOBS:-$(nproc)}
PRESET=${PRESET:-h200}
BUILD=build-$PRESET
LOGS=${LOGS:-gpu-logs}  # several runs at once (one per GPU: CUDA_VISIBLE_DEVICES) need their own
L=/tmp/$LOGS; rm -rf "$L"; mkdir -p "$L"
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
# Without libhwy-dev (the CPU backend's SIMD library), the build uses a copy in .deps/hwy
# (scripts/carry-hwy.sh makes it on a machine that has the package).
if [ -d .deps/hwy ] && ! pkg-config --exists libhwy 2>/dev/null; then
  export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  export LD_LIBRARY_PATH=$PWD/.deps/hwy/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
B=$BUILD/tools/xpose-bench/xpose-bench
failed=0
archive() { tar czf "$OUT/$LOGS.tgz" -C /tmp "$LOGS" 2>/dev/null; cp "$L/summary.txt" "$OUT/$LOGS-summary.txt" 2>/dev/null; }
trap archive EXIT
say() { echo "$*" | tee -a "$L/summary.txt"; }

{ date -u; git log --oneline -1 2>/dev/null
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
  nvcc --version | tail -1; } >"$L/env.txt" 2>&1
say "== env"; cat "$L/env.txt" | tee -a "$L/summary.txt"

# ncu ships with the toolkit but is not always on PATH.
if ! command -v ncu >/dev/null; then
  for d in /usr/local/cuda/bin /usr/local/cuda/nsight-compute* /opt/nvidia/nsight-compute/*; do
    [ -x "$d/ncu" ] && { PATH="$d:$PATH"; break; }
  done
fi

# run NAME CMD...: one step under a timeout, its output in $L/NAME.log, a line in the summary.
run() {
  local name=$1; shift
  local t0=$SECONDS
  timeout "${STEP_TIMEOUT:-300}" "$@" >"$L/$name.log" 2>&1
  local rc=$?
  ((rc != 0)) && failed=$((failed + 1))
  say "== $name: rc=$rc ($((SECONDS - t0)) s)"
  archive
  return $rc
}

build() {
  cmake --preset "$PRESET" -DXPOSE_BUILD_BENCH=ON ${CMAKE_EXTRA:-} >"$L/configure.log" 2>&1 &&
    cmake --build --preset "$PRESET" -j "$JOBS" >"$L/build.log" 2>&1
}
step_ctest() {
  run "ctest_${1//|/_}" ctest --preset "$PRESET" -L "$1" -j 4 --timeout 280 --output-on-failure
  grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|\*\*\*Skipped|Not Run" "$L/ctest_${1//|/_}.log" | head -25 | tee -a "$L/summary.txt"
}
step_python_build() {
  run python_build env CMAKE_BUILD_PARALLEL_LEVEL=$JOBS "${PYTHON:-python3}" -m pip install --no-build-isolation --no-deps \
    --break-system-packages -C cmake.define.CMAKE_CUDA_ARCHITECTURES=90 -C build-dir=build-py-h200 .
}
step_python_test() {
  run python "${PYTHON:-python3}" -m pytest tests/python -q -rs -p no:cacheprovider
  tail -15 "$L/python.log" | tee -a "$L/summary.txt"
}
step_python() {
  local PY=${PYTHON:-python3}
  step_python_build || return
  run python "$PY" -m pytest tests/python -q -rs -p no:cacheprovider
  tail -15 "$L/python.log" | tee -a "$L/summary.txt"
}
md() { local name=$1; shift; run "$name" "$B" "$@" --format md --out "$L/$name.md"; cat "$L/$name.md" >>"$L/summary.txt" 2>/dev/null; }

# xpose::dist on two GPUs (label dist holds the tests): the chunk sweep, 1- and 2-byte
# types, batches. Every row is checked exactly before it is timed.
step_dist() {
  local X=$BUILD/tools/xpose-dist-bench/xpose-dist-bench
  nvidia-smi topo -m >"$L/topo.txt" 2>&1
  run dist_f32 "$X" --sizes 8192,16384,32768,65536 --types f32 --chunks 0,1,2,4,8,16 --json "$L/dist_f32.json"
  run dist_small "$X" --sizes 8192,16384,32768,65536 --types bf16,u8 --chunks 0,4,8 --json "$L/dist_small.json"
  run dist_batched "$X" --sizes 16384,32768 --types f32,u8 --batch 4 --chunks 0,8 --json "$L/dist_batched.json"
  cat "$L/dist_f32.log" "$L/dist_small.log" "$L/dist_batched.log" >>"$L/summary.txt"
}

# LibreTT (the maintained cuTT), for side-by-side measurement only: its public source
# in .peers/librett (never committed), built here for sm_90, its TTC set (bench 6,
# f64) run on the same GPU as xpose's ttc step.
step_librett() {
  [ -d .peers/librett ] || { say "== librett: no LibreTT source in .peers/librett"; failed=$((failed + 1)); return; }
  run librett_build bash -c "cmake -S .peers/librett -B /tmp/librett -G Ninja -DENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/librett -j $JOBS --target librett_bench" || return
  run librett /tmp/librett/tests/librett_bench -bench 6 -elemsize 8
  tail -25 "$L/librett.log" >>"$L/summary.txt"
}

# Before/after: another source tree of xpose in $BASELINE (default .baseline), built here;
# both binaries run the same rows of `best`, alternately (BASELINE_ROUNDS times), and
# bench/baseline_compare.py prints time after / before per row.
# 8192-square rows keep the host checks short (16384^2 c128 is 4 GiB a buffer).
BEST_ROWS=(--variants memcpy,best --dtype i8,f16,f32,f64,c128 --reps 10
           --size 8192x8192,8191x8193,100000x32,32x100000,3x1000003)
step_baseline() {
  local base=${BASELINE:-.baseline}
  [ -d "$base" ] || { say "== baseline: no source tree in $base"; failed=$((failed + 1)); return; }
  run baseline_build bash -c "cmake -S $base -B /tmp/base -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release -DXPOSE_BUILD_TESTS=OFF && cmake --build /tmp/base -j $JOBS --target xpose-bench" || return
  for k in $(seq 1 "${BASELINE_ROUNDS:-1}"); do
    run "before_$k" /tmp/base/tools/xpose-bench/xpose-bench "${BEST_ROWS[@]}" --format csv --out "$L/before_$k.csv"
    run "after_$k" "$B" "${BEST_ROWS[@]}" --format csv --out "$L/after_$k.csv"
    run "before_batch_$k" /tmp/base/tools/xpose-bench/xpose-bench --variants memcpy,best --dtype i8,f16,f32,f64,c128 --batch 10000 --size 64x64 --format csv --out "$L/before_batch_$k.csv"
    run "after_batch_$k" "$B" --variants memcpy,best --dtype i8,f16,f32,f64,c128 --batch 10000 --size 64x64 --format csv --out "$L/after_batch_$k.csv"
  done
  python3 bench/baseline_compare.py "$L" | tee "$L/baseline_compare.txt" | tail -3 >>"$L/summary.txt"
}

say "== build"
[ -n "${NOBUILD:-}" ] || build || { failed=1; grep -E "error|Error" "$L/build.log" "$L/configure.log" | head -40 | tee -a "$L/summary.txt"; exit 1; }
for step in "$@"; do
  case $step in
    ctest:*) step_ctest "${step#ctest:}" ;;
    python) step_python ;;
    python-build) step_python_build ;;
    python-test) step_python_test ;;
    lab) md lab lab ;;
    model) run model bash -c "for b in 32x8 32x32; do $B --model --counters --size 4096x4096 --dtype f32 --block \$b --format md; done" ;;
    best) md best --variants memcpy,copy,best --dtype i8,f16,f32,f64,c128 --reps 10 \
            --size 16384x16384,16383x16385,100000x32,32x100000,3x1000003 ;;
    sweep) md sweep sweep; python3 bench/sweep_summary.py "$L/sweep.md" >>"$L/summary.txt" 2>&1 ;;
    sweep:*) md "sweep_${step#sweep:}" sweep --dtype "${step#sweep:}"
             python3 bench/sweep_summary.py "$L/sweep_${step#sweep:}.md" >>"$L/summary.txt" 2>&1 ;;
    ttc-torch:*) run "ttc_torch_${step#ttc-torch:}" python3 bench/ttc_torch.py --bench "$B" --dtype "${step#ttc-torch:}"
                 tail -3 "$L/ttc_torch_${step#ttc-torch:}.log" >>"$L/summary.txt" ;;
    librett) step_librett ;;
    # after librett and ttc:f64 in the same call: the per-case table (bench/librett_compare.py)
    librett-compare) run librett_compare python3 bench/librett_compare.py "$L/librett.log" "$L/ttc_f64.log"
                     tail -2 "$L/librett_compare.log" >>"$L/summary.txt" ;;
    baseline) step_baseline ;;
    sweep-graph) md sweep_graph sweep --graph --class tiny --reps 20 ;;
    host-overhead) run host_overhead python3 bench/host_overhead.py --json "$L/host_overhead.json"  # after step python
                   tail -20 "$L/host_overhead.log" >>"$L/summary.txt" ;;
    sweep-torch) run sweep_torch python3 bench/sweep_torch.py --bench "$B"; tail -60 "$L/sweep_torch.log" >>"$L/summary.txt" ;;
    ttc) run ttc "$B" ttc --dtype f32,f16,f64; tail -12 "$L/ttc.log" >>"$L/summary.txt" ;;
    ttc:*) run "ttc_${step#ttc:}" "$B" ttc --dtype "${step#ttc:}"; tail -12 "$L/ttc_${step#ttc:}.log" >>"$L/summary.txt" ;;
    inplace) md inplace --inplace ;;
    inplace:*) md "inplace_${step#inplace:}" --inplace --inplace-kinds "${step#inplace:}" ;;
    dist) step_dist ;;
    dist-torch) run dist_torch torchrun --nproc_per_node 2 bench/dist_torch.py; tail -30 "$L/dist_torch.log" >>"$L/summary.txt" ;;
    fuzz) run fuzz env OUT="$L/fuzz" TIME_LIMIT=110 scripts/fuzz-gpu.sh "$BUILD"; tail -3 "$L/fuzz.log" >>"$L/summary.txt" ;;
    sanitizers) run sanitizers env OUT="$L/san" SAN_TIME=10 scripts/sanitizers.sh "$BUILD"; grep -E "^sanitizers:" "$L/sanitizers.log" >>"$L/summary.txt" ;;
    compare) run compare bash -c "$BUILD/bench/best_bench > $L/bench.csv && python3 bench/compare.py $L/bench.csv" ;;
    *) say "unknown step '$step'"; failed=$((failed + 1)) ;;
  esac
done
say "== done: $failed failed step(s)"
exit $failed
