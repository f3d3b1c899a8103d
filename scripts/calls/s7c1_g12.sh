# g12 (merged with main: tree aa893a9477dbb6352adaeb0f4a35dc9057932121; branch 1fa617d), from /work/wt/notes/g12.gpu
ctest --test-dir build-h200 -R 'BestFit\.|BestShift\.' --output-on-failure
$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer) --tool memcheck --error-exitcode 1 ./build-h200/tests/xpose_cuda_tests --gtest_filter='BestFit.Layouts'
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --dtype u8,f16 --class CxHW --format md --out $OUT/g12_ab.md
grep -E "tile_fit|realign_fit" $OUT/g12_ab.md
