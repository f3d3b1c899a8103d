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

test-cpp: build
	ctest --preset $(PRESET) -j $(JOBS)

# Builds the Python package into .venv (incremental build dir: build-py/) and runs pytest.
test-python: deps
	CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) .venv/bin/python -m pip install -q --no-build-isolation --no-deps .
	.venv/bin/python -m pytest tests/python -q

# Host code under ASan + UBSan (CUDA off): the CPU tests, the CLI's hostile inputs and
# a bounded CPU fuzz run (docs/RELIABILITY.md). The install test links no sanitizer runtime.
test-sanitize: deps
	cmake --preset sanitize
	cmake --build --preset sanitize -j $(JOBS)
	ctest --preset sanitize -j $(JOBS) -E install_consumer

test: test-cpp test-python test-sanitize

bench: build
	./build/tools/xpose-bench/xpose-bench $(BENCH_ARGS)

clean:
	rm -rf build build-* .venv
