#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps).
# Session 8, final call, part a: the build alone (the whole tree, scripts/gpu.sh) and, beside it, the Python
# package for sm_90 (pip, build-py-h200); call 3b (scripts/calls/s8call3b.sh) runs on the warm machine.
export JOBS=24
( LOGS=py NOBUILD=1 scripts/gpu.sh python-build >/dev/null 2>&1 ) &
LOGS=build scripts/gpu.sh >/dev/null 2>&1; echo "build rc=$? $(date -u +%T)"
wait; echo "python build $(date -u +%T)"; grep -E "rc=" /tmp/py/summary.txt
grep -m5 -E "error" /tmp/build/build.log
