# Two entry points (README): `make bench` runs xpose-bench, `make test` runs every
# test. Both install what they need first (scripts/install-deps.sh).
PRESET ?= default
JOBS ?= $(shell nproc)
BENCH_ARGS ?=

.PHONY: deps build test test-cpp test-python test-sanitize bench clean

deps:
	./scripts/install-deps.sh

build: deps
	cmake --preset $(PRESET)
	cmake --build --preset $(PRESET) -j $(JOBS)

# Without a GPU the tests labelled gpu are left out, and the summary says so (they
# would only skip); scripts/gpu.sh runs them on the GPU machine.
HAVE_GPU := $(shell nvidia-smi -L >/dev/null 2>&1 && echo 1)
CTEST_GPU_FILTER := $(if $(HAVE_GPU),,-LE gpu)

test-cpp: build
	@[ -n "$(HAVE_GPU)" ] || echo "make test: no GPU here (nvidia-smi -L found none): $$(ctest --preset $(PRESET) -N -L gpu | tail -1 | sed 's/Total Tests: //') tests labelled gpu are not run (they run on the GPU machine: scripts/gpu.sh ctest:gpu)"
	ctest --preset $(PRESET) -j $(JOBS) $(CTEST_GPU_FILTER)

# Builds the Python package into .venv (incremental build dir: build-py/) and runs pytest.
test-python: deps
	CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) .venv/bin/python -m pip install -q --no-build-isolation --no-deps .
	.venv/bin/python -m pytest tests/python -q

# Host code under ASan + UBSan (CUDA off): the CPU tests, the CLI's hostile inputs and
# a bounded CPU fuzz run (docs/RELIABILITY.md). The install test links no sanitizer runtime.
test-sanitize: deps
	cmake --preset sanitize
	cmake --build --preset sanitize -j $(JOBS)
	ctest --preset sanitize -j $(JOBS) -E install_consumer -LE gpu

test: test-cpp test-python test-sanitize

bench: build
	./build/tools/xpose-bench/xpose-bench $(BENCH_ARGS)

clean:
	rm -rf build build-* .venv
