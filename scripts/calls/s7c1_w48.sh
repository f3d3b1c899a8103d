# w48 (merged with main: tree 89b047ebb5ffa76ddb4d950fa3fc1ea61d4387c0; branch b3addab), from /work/wt/notes/w48.gpu
ctest --test-dir build-h200 -R 'BestWide\.|BestShapes\.FewRowsWideBatches|BestHalo\.MicroScatters' --output-on-failure
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --dtype f32,f64,c64 --class CxHW,HWxC,skinny,batch --format md --out $OUT/w48_ab.md
grep -E "slab_gather_micro_deep|micro_halo|tile_few_rows|micro_pipe" $OUT/w48_ab.md
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype f32 --size 32x262144,32x262148,32x262176,32x262145,32x2097152 --reps 20 --format md
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype f64 --size 32x131072,32x131074,32x131073,32x1048576 --reps 20 --format md
for v in best best_next; do echo "######## f64 32x131072 $v"; timeout 60 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats -k regex:pipe_kernel -c 1 ./build-h200/tools/xpose-bench/xpose-bench --variants $v --dtype f64 --size 32x131072 --reps 1 --warmup 0 2>&1 | grep -v "^==PROF==" | tail -90; done > $OUT/w48_ncu.txt 2>&1
