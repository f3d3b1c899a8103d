# main (HEAD): the tiny 4-8 byte small narrow tile (best_tiny_small_default, off: best_next) side by side, in a stream and as graph nodes.
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --graph --class tiny --dtype u8,f16,f32,f64,c64 --reps 30 --format md --out $OUT/tiny_ab.md
./build-h200/tools/xpose-bench/xpose-bench --variants memcpy,best,best_next --dtype f32,f64,c64 --size 128x128,64x64,128x64,64x32,100x52 --reps 50
