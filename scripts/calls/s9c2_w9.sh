# w9 (branch d61c9b9, merged with main 0248a9a), from /work/wt/notes/w9.gpu
./build-h200/tests/xpose_cuda_tests --gtest_filter='BestSkewFit.*:BestNextSkew.*:BestSkewAsync.*:BestSkewSector.*:BestShapes.OddRowLengths:BestAsync.*' 2>&1 | tail -25
./build-h200/bench/best_bench --fit 3 > $OUT/w9_fit.txt 2>&1; tail -5 $OUT/w9_fit.txt
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --dtype f32,f64,c64 --class CxHW,HWxC,odd --reps 7 --format csv --out $OUT/w9_sweep.csv > /dev/null 2>&1; grep -E "realign_skew" $OUT/w9_sweep.csv | head -60
