#!/usr/bin/env bash
# Session 11, final call. Run from the repository root on the GPU machine (nvidia-h200-x2; carry .deps .wt;
# .wt/old: `scripts/wt-trees.sh old=60b8bd8`, session 10's final code). This tree (two-buffer direct scatter
# on, micro-block scatter spans in 64-byte units to aligned rows, large f16 batches on the unpipelined batch
# tile, the inert candidate plumbing removed) built whole beside .wt/old (xpose-bench only); GPU 0: every
# gpu-labelled test, the 256 MiB batch rows, then old / new alternating over the classes call 1 did not
# cover (CxHW, batch, odd, square) while time remains; GPU 1: PyTorch beside every sweep row
# (sweep_torch.py --full), then the tiny calls as CUDA graph nodes. One archive comes back ($OUT/c2.tgz).
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
FINAL=${OUT:-/tmp/out}; O=/tmp/o; rm -rf $O; mkdir -p $O/ab; export OUT=$O
B=build-h200/tools/xpose-bench/xpose-bench; OB=.wt/old/$B
( JOBS=24 LOGS=build scripts/gpu.sh >/dev/null 2>&1; echo "build rc=$? $(date -u +%T)" ) &
( cd .wt/old && cmake --preset h200 -DXPOSE_BUILD_BENCH=ON >$O/old_cfg.log 2>&1 &&
  cmake --build --preset h200 -j 8 --target xpose-bench >$O/old_build.log 2>&1; echo "old build rc=$? $(date -u +%T)" ) &
wait
( export CUDA_VISIBLE_DEVICES=0; LOGS=g0 NOBUILD=1 STEP_TIMEOUT=240 scripts/gpu.sh ctest:gpu >/dev/null 2>&1
  for a in "f16 64x64 32768" "f16 40x64 52428" "f16 64x64 16384" "u8 64x64 65536" "u8 64x64 8192"; do set -- $a
    timeout 20 $B --variants memcpy,best --dtype $1 --size $2 --batch $3 --reps 15 --format csv >>$O/big_batches.csv 2>&1; done
  for k in 0 1; do for t in old new; do b=$B; [ $t = old ] && b=$OB
    ((SECONDS < 440)) && timeout 60 $b sweep --class CxHW,batch,odd,square --reps 5 --format md --out $O/ab/${t}_$k.md >/dev/null 2>&1
  done; done ) &
( export CUDA_VISIBLE_DEVICES=1
  timeout 300 python3 bench/sweep_torch.py --bench $B --full --json $O/sweep_torch.json >$O/sweep_torch.txt 2>&1
  timeout 40 $B sweep --graph --class tiny --reps 20 --format md --out $O/graph.md >/dev/null 2>&1 ) &
wait
grep -hE "==|passed|failed|Failed|Timeout" $O/g0-summary.txt
ls $O/ab/*.md >/dev/null 2>&1 && python3 bench/sweep_compare.py --a $O/ab/old_*.md --b $O/ab/new_*.md --tol 0.03 > $O/ab/compare.txt 2>&1
head -4 $O/ab/compare.txt 2>/dev/null; tail -4 $O/sweep_torch.txt
cp /tmp/g0/ctest_gpu.log /tmp/build/env.txt $O/ 2>/dev/null
tar czf $FINAL/c2.tgz -C $O .; ls -la $FINAL
