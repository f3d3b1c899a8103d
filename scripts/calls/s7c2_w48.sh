# w48 (merged with main: tree bbae354c90b5d8bbea1949cbb72214c374cda29a; branch 0bcb28a), from /work/wt/notes/w48.gpu
ctest --test-dir build-h200 -R 'BestWide\.|BestShapes\.FewRowsWideBatches|BestHalo\.MicroScatters|BestInterleave\.' --output-on-failure
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --dtype f32,f64,c64 --class HWxC,batch --format md --out $OUT/w48_ab2.md
grep -E "x50177x(8|16) |4096x32x32" $OUT/w48_ab2.md
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype f64 --size 32x65534,32x65538,32x98306,32x131074,32x131072 --reps 20 --format md
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype c64 --size 32x65538,32x131074 --batch 2 --reps 20 --format md
