# f32w (merged with main: tree 8d475a19936f67d65518c1bf82a3214177d2ca25; branch d576d71), from /work/wt/notes/f32w.gpu
ctest --test-dir build-h200 -R 'BestWide\.|BestShapes\.MicroWholeBatches$|BestHalo\.|BestInterleave\.|BestShapes\.(PipelinedSlabs|MicroSlabs|ChannelShuffles)$|BestPipe' --output-on-failure
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --dtype f32,f64,c64 --class CxHW,HWxC,skinny,batch --format md --out $OUT/f32w_ab.md
grep -E "micro_pipe|micro_halo" $OUT/f32w_ab.md
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype f32 --size 50177x48 --batch 3 --reps 30
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype f32 --size 48x50177 --batch 3 --reps 30
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype f64 --size 32x131072 --reps 30
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype c64 --size 24x50176 --batch 3 --reps 30
