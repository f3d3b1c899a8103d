#!/usr/bin/env bash
# Run from the repository root on the GPU machine: bash scripts/calls/call4.sh (device tool; carry .deps, and .baseline for the before/after).
# GPU call 4 (session 3): the three before/after rows that came out 2.0-2.9% slower in call 3, alternated 3 times.
export PATH=/usr/local/cuda/bin:$PATH
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
( cmake --preset h200 -DXPOSE_BUILD_BENCH=ON >/dev/null && cmake --build --preset h200 -j 16 --target xpose-bench >/dev/null ) &
( cmake -S .baseline -B /tmp/base -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release -DXPOSE_BUILD_TESTS=OFF >/dev/null && cmake --build /tmp/base -j 16 --target xpose-bench >/dev/null ) &
wait
A=build-h200/tools/xpose-bench/xpose-bench; O=/tmp/base/tools/xpose-bench/xpose-bench
for k in 1 2 3; do for b in before after; do X=$A; [ $b = before ] && X=$O
  timeout 40 $X --variants memcpy,best --dtype f16,f32 --size 32x100000 --reps 30 --format csv --out $OUT/${b}_$k.csv >/dev/null 2>&1
  timeout 40 $X --variants memcpy,best --dtype f16 --batch 10000 --size 64x64 --reps 30 --format csv --out $OUT/${b}_batch_$k.csv >/dev/null 2>&1
done; done
cd $OUT && tar czf rows.tgz *.csv && rm -f *.csv; ls -la $OUT
