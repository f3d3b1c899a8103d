# Two entry points (README): `make bench` runs xpose-bench, `make test` runs every
# test. Each installs what it needs first (scripts/install-deps.sh bench|test).
PRESET ?= default
JOBS ?= $(shell nproc)
BENCH_ARGS ?=
PY := $(CURDIR)/.venv/bin/python
BUILD_DIR := $(shell sed -n '/"name": "$(PRESET)"/,/binaryDir/s|.*"binaryDir": "$${sourceDir}/\([^"]*\)".*|\1|p' CMakePresets.json)

.PHONY: deps-bench deps-test build build-test test test-cpp test-python test-sanitize test-wheel \
        bench wheel sdist clean

deps-bench:
	./scripts/install-deps.sh bench
deps-test:
	./scripts/install-deps.sh test

# The benchmark's build: the library and xpose-bench, no tests, no Python module.
build: deps-bench
	cmake --preset $(PRESET) -DXPOSE_BUILD_TESTS=OFF -DXPOSE_PYTHON=OFF
	cmake --build --preset $(PRESET) -j $(JOBS)

bench: build
	./$(BUILD_DIR)/tools/xpose-bench/xpose-bench $(BENCH_ARGS)

# Without a GPU the tests labelled gpu are left out, and the summary says so (they
# would only skip); scripts/gpu.sh runs them on the GPU machine. The kernels are then
# compiled for sm_90 only (CUDA_ARCHS; no kernel runs, so one architecture checks that
# they build without spills in half the time); with a GPU, for sm_80 and sm_90.
HAVE_GPU := $(shell nvidia-smi -L >/dev/null 2>&1 && echo 1)
CTEST_GPU_FILTER := $(if $(HAVE_GPU),,-LE gpu)
CUDA_ARCHS ?= $(if $(HAVE_GPU),80;90,90)

# The test build: the same tree with the tests and the Python module, so the library
# (CUDA kernels included) is compiled once for the C++ tests and the Python tests.
build-test: deps-test
	cmake --preset $(PRESET) -DXPOSE_BUILD_TESTS=ON -DXPOSE_PYTHON=ON -DPython_EXECUTABLE=$(PY) \
	  "-DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCHS)"
	cmake --build --preset $(PRESET) -j $(JOBS)

test-cpp: build-test
	@[ -n "$(HAVE_GPU)" ] || echo "make test: no GPU here (nvidia-smi -L found none): $$(ctest --preset $(PRESET) -N -L gpu | tail -1 | sed 's/Total Tests: //') tests labelled gpu are not run (they run on the GPU machine: scripts/gpu.sh ctest:gpu)"
	ctest --preset $(PRESET) -j $(JOBS) $(CTEST_GPU_FILTER)

# pytest against the module the test build compiled ($(BUILD_DIR)/python/xpose: the
# module beside links to python/xpose/*.py). `pip install .` builds the same package.
test-python: build-test
	PYTHONPATH=$(CURDIR)/$(BUILD_DIR)/python $(PY) -m pytest tests/python -q -p no:cacheprovider

# Host code under ASan + UBSan (CUDA off): the CPU tests, the CLI's hostile inputs and
# a bounded CPU fuzz run (docs/RELIABILITY.md). The install test links no sanitizer runtime.
# The host emulations of the kernels, all run by test-cpp, run one case in 16 here (a
# fresh printed offset each run: XPOSE_TEST_SAMPLE, tests/common/test_util.hpp).
test-sanitize: deps-test
	cmake --preset sanitize
	cmake --build --preset sanitize -j $(JOBS)
	XPOSE_TEST_SAMPLE=16 ctest --preset sanitize -j $(JOBS) -E install_consumer -LE gpu

# Wheels into wheelhouse/, repaired by auditwheel into manylinux wheels that carry
# libhwy and libgomp: the CPU-only wheel (xpose-X.Y.Z+cpu), or with CUDA=1 the CUDA
# one (xpose-X.Y.Z+cuda: sm_80 + sm_90, CUDA runtime static). Build dirs: build-wheel/.
WHEEL_KIND := $(if $(filter 1 ON on yes,$(CUDA)),cuda,cpu)
wheel: deps-test
	rm -rf build-wheel/dist-$(WHEEL_KIND) && mkdir -p wheelhouse
	XPOSE_WHEEL=$(WHEEL_KIND) CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(PY) -m pip wheel -q --no-build-isolation \
	  --no-deps . -w build-wheel/dist-$(WHEEL_KIND)
	PATH=$(CURDIR)/.venv/bin:$$PATH auditwheel repair -w wheelhouse build-wheel/dist-$(WHEEL_KIND)/*.whl
# The source distribution: builds wherever CMake, a C++17 compiler and Google Highway
# (find_package(hwy) or pkg-config libhwy) are found.
sdist: deps-test
	mkdir -p wheelhouse && $(PY) -c "from scikit_build_core.build import build_sdist; print(build_sdist('wheelhouse'))"

# The CPU wheel: auditwheel show, then a fresh venv, import and transpose with the
# system's libhwy hidden (tests/install/wheel_test.sh).
test-wheel: wheel
	./tests/install/wheel_test.sh wheelhouse $(PY)

test: test-cpp test-python test-sanitize test-wheel

clean:
	rm -rf build build-* .venv wheelhouse
