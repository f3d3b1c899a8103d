# sl9 (branch 77b072e, merged with main 0248a9a), from /work/wt/notes/sl9.gpu
./build-h200/bench/best_bench --slab 3 | tee $OUT/sl9_slab.txt
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --dtype u8,f16 --class HWxC --reps 7 --format md --out $OUT/sl9_ab.md
grep -E "\| best" $OUT/sl9_ab.md | grep -E "x50177x"
ctest --test-dir build-h200 -R 'BestScatterSlab\.|BestHalo\.|BestDirect\.' --output-on-failure
$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer) --tool memcheck --error-exitcode 1 ./build-h200/tests/xpose_cuda_tests --gtest_filter='BestScatterSlab.OutputOffsets'
