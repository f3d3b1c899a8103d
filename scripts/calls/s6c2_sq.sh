# sq (merged with main: tree 2ccbde9d813732ef8d0ffc89ebd06906ccc31ad5; branch 0bca1d5), from /work/wt/notes/sq.gpu
./build-h200/tests/xpose_cuda_tests --gtest_filter='BestAsync.*:Best.*:BestShapes.*:DependentLaunch.*'
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --dtype u8,f16 --class square,batch --reps 20 --format md --out $OUT/sq_ab.md
python3 bench/sweep_summary.py $OUT/sq_ab.md
./build-h200/bench/best_bench --sq 3 | tee $OUT/sq_bench.txt
./build-h200/tools/xpose-bench/xpose-bench sweep --graph --class tiny --dtype u8,f16 --candidate --format md --out $OUT/sq_tiny.md
# coordinator's candidates (main): tiny 4-8 byte on the narrow tile, 4-8 byte <= 32-row batches on the few-rows tile
ctest --test-dir build-h200 -R 'BestShapes\.(TinyWideNarrowTile|FewRowsWideBatches)$|BestHalo\.UnpipelinedSides' --output-on-failure
./build-h200/tools/xpose-bench/xpose-bench sweep --graph --candidate --class tiny,batch --dtype f32,f64,c64 --format md --out $OUT/main_tiny_batch.md
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype f64,c64 --size 32x32 --batch 4096 --reps 30
