# odd (merged with main: tree a7a5074a37306acd8a94c94a98df253784ba5c3c; branch 0952f93), from /work/wt/notes/odd.gpu
ctest --test-dir build-h200 -R "BestSkewSector|BestSkewAsync\.EveryOffset|BestNextSkew\.EveryOffset|BestAsync\.RealignEveryOffset|BestShapes\.OddRowLengths" --output-on-failure
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --class odd --reps 15
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype u8,f16,f32,f64 --size 3001x4003,4999x6007,1001x12007 --reps 15
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype f16 --size 8192x8193,6144x6145,4096x4099 --reps 15
