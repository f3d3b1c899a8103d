#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps).
# Session 10, final call: this tree (main with ga10 and sc10 merged; ga10's three switches and sc10's f32
# micro-block scatter on) built whole, then GPU 0: every gpu-labelled test, then the candidates side by
# side (sweep --candidate over the slab classes: best_scatter_direct2_default, best_scatter_span64_default
# are the off switches); GPU 1: PyTorch beside every sweep row (sweep_torch.py --full), then the tiny
# calls as CUDA graph nodes. Everything comes back in one archive (at most 8 files come back).
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0 JOBS=32
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
FINAL=${OUT:-/tmp/out}; export OUT=/tmp/o; mkdir -p $OUT
B=build-h200/tools/xpose-bench/xpose-bench
LOGS=build scripts/gpu.sh >/dev/null 2>&1; echo "build rc=$? $(date -u +%T)"
( export CUDA_VISIBLE_DEVICES=0; LOGS=g0 NOBUILD=1 timeout 215 scripts/gpu.sh ctest:gpu >/dev/null 2>&1
  timeout 75 $B sweep --candidate --class HWxC,CxHW,skinny --dtype u8,f16,f32 --reps 5 --format md --out /tmp/cand.md >/dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1
  timeout 285 python3 bench/sweep_torch.py --bench $B --full --json /tmp/sweep_torch.json >/tmp/sweep_torch.txt 2>&1
  timeout 35 $B sweep --graph --class tiny --reps 20 --format md --out /tmp/graph.md >/dev/null 2>&1 ) &
wait
cp /tmp/g0/summary.txt $OUT/g0-summary.txt 2>/dev/null; cp /tmp/g0/ctest_gpu.log $OUT/ 2>/dev/null
cp /tmp/sweep_torch.txt /tmp/sweep_torch.json /tmp/graph.md /tmp/cand.md $OUT/ 2>/dev/null
tar czf $FINAL/final.tgz -C $OUT .
grep -hE "rc=|tests passed|tests failed|Failed|Timeout" $OUT/g0-summary.txt | head -20
tail -4 /tmp/sweep_torch.txt; ls -la $FINAL
