#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .wt).
# Session 10, GPU call 1a: the build alone. This tree whole (scripts/gpu.sh) beside every tree in .wt
# (scripts/wt-trees.sh: the helper branches merged with this tree, and old = b0d8d3b, session 9's last
# tree, for the same-node A/B of pipe_path's run-time slab sizes). Call 1b runs on the warm machine.
export OUT=${OUT:-/tmp/out}
( JOBS=14 LOGS=b0 scripts/gpu.sh >/dev/null 2>&1; echo "root build rc=$?" ) &
( NOBUILD=1 JOBS=18 LOGS=b1 scripts/gpu.sh trees >/dev/null 2>&1; echo "trees rc=$?" ) &
wait
grep -h "==" $OUT/b0-summary.txt $OUT/b1-summary.txt | grep -v "== env"; grep -h -A12 "^== build" $OUT/b0-summary.txt | grep -i error | head
