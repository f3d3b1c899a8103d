#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .wt).
# Session 9, GPU call 1: the same-node regression check. .wt/old (cd2b244, session 7's final tree) and
# .wt/main (this tree) build xpose-bench side by side; then each GPU runs the whole sweep of both trees
# alternately (GPU 0: old, main; GPU 1: main, old), then both trees' tiny calls as CUDA graph nodes;
# bench/sweep_compare.py compares the four tables (per case the median of its two rounds).
OUT=${OUT:-/tmp/out}
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
for t in old main; do
  ( cd .wt/$t && cmake --preset h200 -DXPOSE_BUILD_BENCH=ON >/tmp/cfg_$t.log 2>&1 &&
      cmake --build --preset h200 -j $(( $(nproc) / 2 )) --target xpose-bench >/tmp/build_$t.log 2>&1
    echo "$t build rc=$? $(date -u +%T)" ) &
done
wait
mkdir -p $OUT/ab
sw() {  # tree round gpu
  local s=$(date +%s)
  CUDA_VISIBLE_DEVICES=$3 timeout 140 .wt/$1/build-h200/tools/xpose-bench/xpose-bench sweep --reps 7 --format md \
    --out $OUT/ab/$1_$2.md >$OUT/ab/$1_$2.log 2>&1
  echo "$1 round $2 gpu $3 rc=$? $(( $(date +%s) - s )) s" >>$OUT/ab/times.txt
}
( sw old 1 0; sw main 1 0; CUDA_VISIBLE_DEVICES=0 timeout 40 .wt/old/build-h200/tools/xpose-bench/xpose-bench sweep \
    --graph --class tiny --reps 20 --format md --out $OUT/ab/graph_old.md >/dev/null 2>&1 ) &
( sw main 2 1; sw old 2 1; CUDA_VISIBLE_DEVICES=1 timeout 40 .wt/main/build-h200/tools/xpose-bench/xpose-bench sweep \
    --graph --class tiny --reps 20 --format md --out $OUT/ab/graph_main.md >/dev/null 2>&1 ) &
wait
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >$OUT/ab/gpu.txt
python3 bench/sweep_compare.py --a $OUT/ab/old_*.md --b $OUT/ab/main_*.md >$OUT/ab/compare.md 2>&1
cat $OUT/ab/times.txt; head -3 $OUT/ab/compare.md; ls -la $OUT/ab
