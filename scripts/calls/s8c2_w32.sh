# w32 (branch 23ecd39, as is), from /work/wt/notes/w32.gpu
ctest --test-dir build-h200 -R 'BestFitWide\.|BestFit\.NotTaken|BestWide\.(Gathers|SweepRows)' --output-on-failure 2>&1 | tail -15
compute-sanitizer --tool memcheck --error-exitcode 1 build-h200/tests/xpose_cuda_tests --gtest_filter='BestFitWide.Tiles:BestFitWide.Layouts' 2>&1 | tail -4
B=build-h200/tools/xpose-bench/xpose-bench
$B --variants memcpy,best,best_next --dtype f32 --size 32x262144,24x262144,16x524288,48x174768,64x131072,8x1048576 --reps 20 --format md 2>&1 | grep -E "best|memcpy"
for dt in f64 c64; do $B --variants memcpy,best,best_next --dtype $dt --size 32x131072,24x131072,16x262144,48x87384,8x524288 --reps 20 --format md 2>&1 | grep -E "best|memcpy"; done
$B --variants memcpy,best,best_next --dtype f32 --size 32x50176 --batch 5 --reps 20 --format md 2>&1 | grep -E "best|memcpy"
$B --variants memcpy,best,best_next --dtype f32 --size 24x50176 --batch 6 --reps 20 --format md 2>&1 | grep -E "best|memcpy"
for dt in f64 c64; do $B --variants memcpy,best,best_next --dtype $dt --size 32x50176 --batch 2 --reps 20 --format md 2>&1 | grep -E "best|memcpy"; $B --variants memcpy,best,best_next --dtype $dt --size 24x50176 --batch 3 --reps 20 --format md 2>&1 | grep -E "best|memcpy"; done
build-h200/bench/best_bench --wrows 2 2>&1 | tee $OUT/w32_wrows.csv | grep -v "^#"
ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats -k regex:tile_kernel $B --variants best_next --size 32x131072 --dtype c64 --reps 1 --warmup 0 > $OUT/w32_ncu_c64_32.txt 2>&1; tail -60 $OUT/w32_ncu_c64_32.txt
ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats -k regex:tile_kernel $B --variants best_next --size 24x50176 --batch 3 --dtype c64 --reps 1 --warmup 0 > $OUT/w32_ncu_c64_24.txt 2>&1; tail -60 $OUT/w32_ncu_c64_24.txt
