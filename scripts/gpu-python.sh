#!/usr/bin/env bash
# On the GPU machine (no network; python3 with torch, cupy, jax, numpy, pytest,
# nanobind, scikit-build-core preinstalled): build and install the Python package
# for sm_90, run its tests (torch / cupy / jax GPU cases included), then
# python -m xpose.bench at 16384x16384. Logs and JSON go to $OUT.
# Usage: scripts/gpu-python.sh   (env: PYTHON=python3, JOBS=16, OUT=/tmp/out)
set -euo pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
JOBS=${JOBS:-16}
DTYPES=${DTYPES:-float32,float16,bfloat16,int8,float64,complex64}

{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
  nvcc --version | tail -2 || true
  git log --oneline -1 2>/dev/null || true
  "$PY" - <<'PYEOF' || true
import importlib, sys
print("python", sys.version.split()[0])
for m in ("numpy", "torch", "cupy", "jax", "jaxlib", "nanobind", "scikit_build_core", "pytest"):
    try:
        mod = importlib.import_module(m)
        print(m, getattr(mod, "__version__", "?"))
    except Exception as e:  # noqa: BLE001
        print(m, "unavailable:", type(e).__name__, e)
PYEOF
} 2>&1 | tee "$OUT/pyenv.txt"

# ---- build + install --------------------------------------------------------
# One build directory for every attempt, so the library compiles once.
pip_install() {
  CMAKE_BUILD_PARALLEL_LEVEL=$JOBS "$PY" -m pip install --no-build-isolation --no-deps -v \
    -C cmake.define.CMAKE_CUDA_ARCHITECTURES=90 -C build-dir=build-py-h200 "$@" . >>"$OUT/pybuild.log" 2>&1
}
: >"$OUT/pybuild.log"
if pip_install; then
  echo "== pip install ok"
elif pip_install --break-system-packages; then
  echo "== pip install ok (--break-system-packages)"
else
  echo "== pip install failed (tail of pybuild.log below); building the module with cmake directly"
  tail -25 "$OUT/pybuild.log"
  cmake -S . -B build-py-h200-cmake -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_PYTHON=ON \
    -DXPOSE_BUILD_TESTS=OFF -DXPOSE_BUILD_TOOLS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DPython_EXECUTABLE="$(command -v "$PY")" >"$OUT/pycmake.log" 2>&1 || { tail -30 "$OUT/pycmake.log"; exit 1; }
  cmake --build build-py-h200-cmake -j "$JOBS" --target _xpose >>"$OUT/pycmake.log" 2>&1 ||
    { grep -E "error|Error" "$OUT/pycmake.log" | head -30; exit 1; }
  stage=$PWD/build-py-h200-cmake/stage
  rm -rf "$stage"; mkdir -p "$stage"
  cp -r python/xpose "$stage/"
  cp build-py-h200-cmake/python/_xpose*.so "$stage/xpose/"
  export PYTHONPATH=$stage${PYTHONPATH:+:$PYTHONPATH}
  echo "== module built with cmake; PYTHONPATH=$stage"
fi
"$PY" -c "import xpose; print('xpose', xpose.__version__, 'from', xpose.__file__, '| cuda built:', xpose.built_with_cuda(), '| devices:', xpose.device_count())" |
  tee -a "$OUT/pyenv.txt"

# ---- tests ------------------------------------------------------------------
set +e
"$PY" -m pytest tests/python -q -rs -p no:cacheprovider --junitxml="$OUT/pytest.xml" >"$OUT/pytest.log" 2>&1
test_rc=$?
set -e
tail -40 "$OUT/pytest.log"
echo "== pytest rc=$test_rc"

# ---- benchmark --------------------------------------------------------------
set +e
"$PY" -m xpose.bench --size 16384x16384 --dtypes "$DTYPES" --json "$OUT/pybench.json" 2>&1 | tee "$OUT/pybench.txt"
bench_rc=${PIPESTATUS[0]}
set -e
echo "== bench rc=$bench_rc"
[ "$test_rc" -eq 0 ] && [ "$bench_rc" -eq 0 ]
