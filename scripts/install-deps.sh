#!/usr/bin/env bash
# Installs what building and testing xpose needs on a fresh Debian 12 machine:
# Debian packages (only the missing ones) and a Python virtual environment (.venv)
# with the PyPI packages of the Python package and its tests. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(cmake ninja-build g++ make pkg-config libgtest-dev libcli11-dev nlohmann-json3-dev
      libopenblas-dev python3-venv python3-dev)
# xpose::dist: MPI on host memory in CI; mpi4py builds against it.
pkgs+=(libopenmpi-dev openmpi-bin)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 ||
    { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q "${missing[@]}" >/dev/null; }
fi

# CPU backend: Google Highway; the Arm cross build of the CPU tests:
# cross compiler, qemu-user, and Highway + GoogleTest for arm64 through multiarch.
cpu_pkgs=(libhwy-dev g++-aarch64-linux-gnu qemu-user libhwy-dev:arm64 libgtest-dev:arm64)
cpu_missing=()
for p in "${cpu_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || cpu_missing+=("$p")
done
if ((${#cpu_missing[@]})); then
  echo "install-deps: installing Debian packages: ${cpu_missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  dpkg --print-foreign-architectures | grep -qx arm64 || $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -q >/dev/null
  $SUDO apt-get install -y -q "${cpu_missing[@]}" >/dev/null
fi

# Python environment for the Python package and its tests.
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv 2>/dev/null || { "$PY" -m pip install -q virtualenv && "$PY" -m virtualenv -q .venv; }
fi
stamp=.venv/.xpose-deps-1
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q "numpy>=1.24" "pytest>=7" "nanobind>=2.0" "scikit-build-core>=0.10" matplotlib
  touch "$stamp"
fi
# xpose.dist over mpi4py (tests/python/test_dist_mpi.py); built against the Open MPI above.
stamp_dist=.venv/.xpose-deps-dist-1
if [ ! -f "$stamp_dist" ]; then
  .venv/bin/python -m pip install -q "mpi4py>=3.1"
  touch "$stamp_dist"
fi

# Property-based tests (Hypothesis) and the CPU paths of JAX and PyTorch,
# exercised without a GPU. PyPI's torch for Linux is the CUDA build with its CUDA
# libraries (measured: 5 min, 5.4 GB); it imports and runs on the CPU without a
# driver. XPOSE_SKIP_TORCH=1 leaves it out (its tests then skip, saying why).
stamp2=.venv/.xpose-deps-2
if [ ! -f "$stamp2" ]; then
  .venv/bin/python -m pip install -q "hypothesis>=6" "jax[cpu]"
  if [ "${XPOSE_SKIP_TORCH:-0}" != 1 ]; then
    .venv/bin/python -m pip install -q torch ||
      echo "install-deps: torch did not install from PyPI; the PyTorch tests will be skipped (with the reason)"
  fi
  touch "$stamp2"
fi
