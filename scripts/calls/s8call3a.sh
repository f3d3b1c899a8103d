#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200: one GPU, 16 cores; carry .deps).
# Session 8, final call, part a: the build alone (the whole tree, scripts/gpu.sh); call 3b
# (scripts/calls/s8call3b.sh) runs on the warm machine right after.
export JOBS=16
LOGS=build scripts/gpu.sh >/dev/null 2>&1; echo "build rc=$? $(date -u +%T)"
grep -m5 -E "error" /tmp/build/build.log
