# s12 (merged with main: tree 5d3c1774d1c1ac7d38b29c1ad057e95dc06eec4c; branch 6c3c700), from /work/wt/notes/s12.gpu
ctest --test-dir build-h200 -R 'BestDeep\.|BestHalo\.|BestShapes\.(PipelinedSlabs|MicroSlabs|ChannelShuffles)$' --output-on-failure
./build-h200/tools/xpose-bench/xpose-bench sweep --candidate --dtype u8,f16 --class HWxC --format md --out $OUT/s12_ab.md
grep -E "\| best" $OUT/s12_ab.md
