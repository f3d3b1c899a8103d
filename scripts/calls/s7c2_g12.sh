# g12 (merged with main: tree 9f2e56b8ead2daff2c9ff27a161329bf545b6a63; branch 21b887e), from /work/wt/notes/g12.gpu
ctest --test-dir build-h200 -R 'BestFit\.|BestShift\.' --output-on-failure
$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer) --tool memcheck --error-exitcode 1 ./build-h200/tests/xpose_cuda_tests --gtest_filter='BestFit.Layouts'
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --dtype u8,f16 --class CxHW --format md --out $OUT/g12_ab2.md
grep -E "tile_fit|realign_fit" $OUT/g12_ab2.md
