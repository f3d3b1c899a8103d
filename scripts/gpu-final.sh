#!/usr/bin/env bash
# The lead's batched H200 validation, in two calls that each fit the 10-minute limit.
#   scripts/gpu-final.sh 1   build (preset h200), the whole ctest suite, model vs ncu,
#                            lab, best rows for the shape classes
#   scripts/gpu-final.sh 2   10,000-case GPU fuzz, the four compute-sanitizer tools,
#                            the Python package's GPU tests and python -m xpose.bench
# Everything lands in /tmp/res, returned as one archive $OUT/resN.tgz.
set -uo pipefail
phase=${1:?phase 1 or 2}
OUT=${OUT:-/tmp/out}
R=/tmp/res$phase; rm -rf "$R"; mkdir -p "$R"
export PATH=/usr/local/cuda/bin:$PATH
step() { [ -d "$R" ] && tar czf "$OUT/res$phase.tgz" -C /tmp "res$phase" 2>/dev/null; echo "== $(date +%T) $*"; }
finish() { tar czf "$OUT/res$phase.tgz" -C /tmp "res$phase"; }
trap finish EXIT
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nvcc --version | tail -2; date -u; } >"$R/env.txt" 2>&1
cat "$R/env.txt"
if [ "$phase" = 1 ]; then
  step build
  cmake --preset h200 >"$R/configure.log" 2>&1 && cmake --build --preset h200 -j 16 >"$R/build.log" 2>&1 ||
    { grep -E "error|Error" "$R/build.log" "$R/configure.log" | head -30; exit 1; }
  step ctest
  timeout 300 ctest --preset h200 -j 6 --timeout 280 >"$R/ctest.log" 2>&1; echo "ctest rc=$?"
  grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|Not Run" "$R/ctest.log" | head -20
  step model
  OUT=$R timeout 200 scripts/gpu-model.sh build-h200 >"$R/model.log" 2>&1; echo "model rc=$?"
  B=build-h200/tools/xpose-bench/xpose-bench
  step lab
  timeout 60 $B lab --format md --out "$R/lab.md" >/dev/null 2>"$R/lab.err"; echo "lab rc=$?"
  step best rows
  timeout 120 $B --variants memcpy,copy,best --dtype i8,f16,f32,f64,c128 \
    --size 16384x16384,16383x16385,100000x32,32x100000,3x1000003 --format md --out "$R/best.md" >/dev/null 2>"$R/best.err"
  echo "best rows rc=$?"
  timeout 60 $B --variants memcpy,copy,best --dtype i8,f32 --batch 10000 --size 64x64 --format md --out "$R/best_batch.md" >/dev/null 2>>"$R/best.err"
  echo "best batch rc=$?"
else
  if [ ! -x build-h200/tests/fuzz/xpose_fuzz ] && [ ! -x build-h200/tests/xpose_fuzz ]; then
    step "build (machine was fresh)"
    cmake --preset h200 >"$R/configure.log" 2>&1 && cmake --build --preset h200 -j 16 >"$R/build.log" 2>&1 ||
      { grep -E "error|Error" "$R/build.log" | head -30; exit 1; }
  fi
  step best ragged rows
  timeout 50 build-h200/tools/xpose-bench/xpose-bench --variants memcpy,copy,best --dtype i8,f16,f32 --size 16383x16385,32x1000000 \
    --reps 10 --format md --out "$R/best_ragged.md" >/dev/null 2>"$R/best_ragged.err"; echo "best ragged rc=$?"
  step fuzz
  OUT=$R/fuzz TIME_LIMIT=110 timeout 150 scripts/fuzz-gpu.sh build-h200 >"$R/fuzz.log" 2>&1; echo "fuzz rc=$?"; tail -3 "$R/fuzz.log"
  step sanitizers
  OUT=$R/san SAN_TIME=10 timeout 180 scripts/sanitizers.sh build-h200 >"$R/san.log" 2>&1; echo "sanitizers rc=$?"; grep -E "^sanitizers:" "$R/san.log"
  step python
  OUT=$R/py timeout 150 scripts/gpu-python.sh >"$R/py.log" 2>&1; echo "python rc=$?"; tail -25 "$R/py.log"
fi
step done
