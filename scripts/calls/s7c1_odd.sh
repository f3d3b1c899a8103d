# odd (merged with main: tree b7b3c499943bb9a81638ac135c0592a732f36018; branch 70e8dc0), from /work/wt/notes/odd.gpu
ctest --test-dir build-h200 -R "BestSkewSector|BestSkewAsync\.EveryOffset|BestNextSkew\.EveryOffset|BestAsync\.RealignEveryOffset|BestShapes\.OddRowLengths" --output-on-failure
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --class odd --reps 15
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype u8,f16,f32,f64 --size 3001x4003,4999x6007,1001x12007 --reps 15
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype u8,f16 --size 8192x8193,6144x6145 --reps 15
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype f32,f64,c64 --size 96x50177,128x50177,64x50177 --reps 15
