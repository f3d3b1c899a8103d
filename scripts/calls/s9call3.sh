#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps).
# Session 9, final call: this tree built whole (scripts/gpu.sh, JOBS 32), then GPU 0: every
# gpu-labelled test; GPU 1: PyTorch beside every sweep row (sweep_torch.py --full), then the tiny
# calls as CUDA graph nodes (sweep --graph --class tiny).
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0 JOBS=32
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
FINAL=${OUT:-/tmp/out}; export OUT=/tmp/o; mkdir -p $OUT
B=build-h200/tools/xpose-bench/xpose-bench
LOGS=build scripts/gpu.sh >/dev/null 2>&1; echo "build rc=$? $(date -u +%T)"
( CUDA_VISIBLE_DEVICES=0 LOGS=g0 NOBUILD=1 timeout 240 scripts/gpu.sh ctest:gpu >/dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1
  timeout 290 python3 bench/sweep_torch.py --bench $B --full --json /tmp/sweep_torch.json >/tmp/sweep_torch.txt 2>&1
  timeout 40 $B sweep --graph --class tiny --reps 20 --format md --out /tmp/graph.md >/dev/null 2>&1 ) &
wait
tar czf $FINAL/torch.tgz -C /tmp sweep_torch.txt sweep_torch.json graph.md
cat /tmp/g0/summary.txt > $FINAL/summary.txt; tar czf $FINAL/logs.tgz -C $OUT .
grep -hE "rc=|tests passed|tests failed|Failed|Timeout" $FINAL/summary.txt | head -30
tail -4 /tmp/sweep_torch.txt
ls -la $FINAL
