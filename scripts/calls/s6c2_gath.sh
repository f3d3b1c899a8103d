# gath (merged with main: tree 8b423771a1b61c1f27fefd7fc5f3daef99e1d951; branch c42fecf), from /work/wt/notes/gath.gpu
ctest --test-dir build-h200 -R 'BestShift\.|BestShapes\.(PipelinedSlabs|ShortPipelinedGathers|MicroSlabs)$|BestPipePolicy\.|BestPipeEmulation\.Shift' --output-on-failure
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --dtype u8,f16 --class CxHW --format md --out $OUT/gath_ab.md
grep -E "shift" $OUT/gath_ab.md
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype u8 --size 48x50177 --batch 13 --reps 30
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype u8 --size 6x50177 --batch 111 --reps 30
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype f16 --size 96x50176 --batch 3 --reps 30
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype u8 --size 2x50177 --batch 256 --reps 30
for b in 12 48; do ./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype f16 --size 96x50176 --batch $b --reps 20; done
for b in 52 208; do ./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype u8 --size 48x50177 --batch $b --reps 20; done
for b in 444 1776; do ./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype u8 --size 6x50177 --batch $b --reps 20; done
