# s12 (merged with main: tree c3429af4118267a22ea55b08b9b742b638dbe4cb; branch e3c6921), from /work/wt/notes/s12.gpu
ctest --test-dir build-h200 -R 'BestDeep\.|BestHalo\.|BestShapes\.(PipelinedSlabs|MicroSlabs|ChannelShuffles)$' --output-on-failure
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --dtype u8,f16 --class HWxC --format md --out $OUT/s12_ab2.md
grep -E "\| best" $OUT/s12_ab2.md
