# sqw (merged with main: tree acdc620f845c1c3704622dc15932bf1894159dfd; branch be3f24d), from /work/wt/notes/sqw.gpu
./build-h200/tests/xpose_cuda_tests --gtest_filter='BestAsync.*:Best.*:BestShapes.*:BestWide.*'
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --dtype f32,f64,c64 --class square,batch --reps 20 --format md --out $OUT/sqw_ab.md
./build-h200/bench/best_bench --sqw 3 > $OUT/sqw_geo.txt 2>&1; grep -E "round|best|pipe 64x16 nt 256 mw 16 minb 4 tpb 1 stages 3" $OUT/sqw_geo.txt | head -80
