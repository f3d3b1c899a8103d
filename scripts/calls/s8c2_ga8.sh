# ga8 (branch 1fc98f0, as is), from /work/wt/notes/ga8.gpu
ctest --test-dir build-h200 -R 'BestLean\.|BestFit\.|BestShift\.|BestShapes\.(PipelinedSlabs|ShortPipelinedGathers)$' --output-on-failure
$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer) --tool memcheck --error-exitcode 1 ./build-h200/tests/xpose_cuda_tests --gtest_filter='BestLean.GroupedGathers'
B=./build-h200/tools/xpose-bench/xpose-bench
for r in "u8 6x50177 111" "u8 8x50177 83" "u8 5x50177 133" "u8 2x50177 256" "u8 3x50177 222" "u8 4x50177 167" "f16 2x50177 167" "u8 24x50177 27" "u8 96x50177 6" "f16 96x50177 3" "u8 48x50176 13"; do set -- $r; $B --variants memcpy,best,best_next --dtype $1 --size $2 --batch $3 --reps 20 2>&1 | grep -E "best|memcpy"; done
$B sweep --candidate --dtype u8,f16 --class CxHW --reps 10 --format md --out $OUT/ga8_ab.md
grep -E "pipe|fit" $OUT/ga8_ab.md
ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats -k regex:pipe_kernel $B --variants best_next --size 6x50177 --batch 111 --dtype u8 --reps 1 --warmup 0 > $OUT/ncu_lean_u8_111x6x50177.txt 2>&1
