# sc8 (branch af61d7d, as is), from /work/wt/notes/sc8.gpu
ctest --test-dir build-h200 -R 'BestPreshift\.' --output-on-failure
$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer) --tool memcheck --error-exitcode 1 ./build-h200/tests/xpose_cuda_tests --gtest_filter='BestPreshift.GroupedSides:BestPreshift.MicroSides'
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --dtype u8,f16 --class HWxC --reps 7 --format md --out $OUT/sc8_ab.md
grep -E "\| best" $OUT/sc8_ab.md | grep -E "x50177x"
./build-h200/bench/best_bench --preshift 3 | tee $OUT/sc8_preshift.txt
