# sqw (merged with main: tree 419123e6e2b0c03346c6c3f035f9ea0b61b415e9; branch 2223f40), from /work/wt/notes/sqw.gpu
./build-h200/tests/xpose_cuda_tests --gtest_filter='BestAsync.*:BestShapes.*'
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --dtype f32 --class square,batch --reps 20 --format md --out $OUT/sqw_ab.md
grep -E "best" $OUT/sqw_ab.md | grep -E "square|batch"
