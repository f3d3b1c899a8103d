# skew (merged with main: tree 11c2cfa8520fb398956ed872e114474422d6ef8c; branch d95de2e), from /work/wt/notes/skew.gpu
ctest --test-dir build-h200 -L gpu -R "BestSkewAsync|BestNextSkew|BestAsync|BestShapes" --output-on-failure
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --class odd --format md --out $OUT/skew_odd.md
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype f32,f64,c64 --size 96x50177,128x50177,64x50177 --reps 20 > $OUT/skew_fewrows.txt 2>&1
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype u8,f16 --size 5759x5763,4095x4099,4096x4097,5760x5761 --reps 20 > $OUT/skew_u8f16.txt 2>&1
