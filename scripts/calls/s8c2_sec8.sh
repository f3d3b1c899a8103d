# sec8 (branch 8a1cc25, as is), from /work/wt/notes/sec8.gpu
ctest --test-dir build-h200 -R "BestSkewSplit|BestSkewSector|BestNextSkew|BestSkewAsync\.EveryOffset|BestAsync\.RealignEveryOffset|BestShapes\.OddRowLengths" --output-on-failure
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --dtype u8,f16 --class odd --reps 15 --format md --out $OUT/sec8_odd.md
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype u8,f16 --size 5759x5763,4095x4099,4096x4097,8191x8193,3001x7777,16383x16385 --reps 15 | tee $OUT/sec8_sizes.txt
ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats -k regex:skew_async_kernel build-h200/tools/xpose-bench/xpose-bench --variants best_next --size 5759x5763 --dtype u8 --reps 1 --warmup 0 > $OUT/ncu_split_u8_5759x5763.txt 2>&1
ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats -k regex:skew_async_kernel build-h200/tools/xpose-bench/xpose-bench --variants best_next --size 4096x4097 --dtype f16 --reps 1 --warmup 0 > $OUT/ncu_split_f16_4096x4097.txt 2>&1
