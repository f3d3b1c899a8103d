# sd: main with the shift gathers' load-buffer count a compile-time 3 (pipe_kernel's D for SH) and
# pipe_path always launching them with three buffers; main decides 2 or 3 at run time by occupancy
# and the kernel reads a.pipe_depth. Same run, alternately (ABBA), the shift-gather rows of the sweep.
M=../main/build-h200/tools/xpose-bench/xpose-bench; S=build-h200/tools/xpose-bench/xpose-bench
rows="u8:111:6x50177 u8:83:8x50177 u8:133:5x50177 u8:256:2x50177 u8:222:3x50177 u8:167:4x50177 f16:167:2x50177 f16:83:4x50177"
for k in 1 2; do for r in $rows; do IFS=: read t b s <<<"$r"
  for bin in $M $S; do [ $k = 2 ] && bin=$([ $bin = $M ] && echo $S || echo $M)
    echo "## $k $bin"; timeout 20 $bin --variants memcpy,best --dtype $t --batch $b --size $s --reps 15 --format csv
  done; done; done
