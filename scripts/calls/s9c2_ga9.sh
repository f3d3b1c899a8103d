# ga9 (branch 0d26b6f, merged with main 0248a9a), from /work/wt/notes/ga9.gpu
ctest --test-dir build-h200 -R 'BestGatherSlab\.|BestLean\.|BestShift\.' --output-on-failure
$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer) --tool memcheck --error-exitcode 1 ./build-h200/tests/xpose_cuda_tests --gtest_filter='BestGatherSlab.Sides'
./build-h200/bench/best_bench --gather 3 > $OUT/ga9_gather.txt 2>&1; tail -5 $OUT/ga9_gather.txt
B=./build-h200/tools/xpose-bench/xpose-bench
for r in "24x50177 27" "24x50176 27" "12x50176 55" "12x50177 55" "8x50177 83" "8x50176 83" "16x50176 41" "16x50177 41" "32x50177 20" "96x50177 6" "48x50176 13" "48x50177 13"; do set -- $r; $B --variants memcpy,best,best_next --dtype u8 --size $1 --batch $2 --reps 20 2>&1 | grep -E "best|memcpy"; done > $OUT/ga9_rows.txt; cat $OUT/ga9_rows.txt
$B sweep --candidate --dtype u8 --class CxHW --reps 10 --format md --out $OUT/ga9_ab.md
grep -E "pipe|fit" $OUT/ga9_ab.md
