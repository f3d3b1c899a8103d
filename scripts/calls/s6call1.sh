#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps).
# Session 6, GPU call 1: the halo-sides candidate's tests; the full sweep with best_next side by side
# (this session's starting point; best_next has the halo sides on); PyTorch for every sweep row (--full,
# the L2-flush fix and .clone() for 1-wide sides); tiny calls in a graph; ncu of six slow rows.
export JOBS=32 STEP_TIMEOUT=330
OUT=${OUT:-/tmp/out}
LOGS=build scripts/gpu.sh || { echo BUILD FAILED; grep -E "error" /tmp/build/*.log | head; exit 1; }
B=build-h200/tools/xpose-bench/xpose-bench
( export CUDA_VISIBLE_DEVICES=0
  ctest --test-dir build-h200 -R 'BestHalo\.|BestShapes\.(PipelinedSlabs|MicroSlabs|ChannelShuffles)$' --output-on-failure >$OUT/halo_ctest.txt 2>&1
  timeout 320 python3 bench/sweep_torch.py --bench $B --full --json /tmp/sweep_torch.json >$OUT/sweep_torch.txt 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1 LOGS=g1 NOBUILD=1; timeout 200 scripts/gpu.sh sweep-ab sweep-graph >/dev/null 2>&1
  cp /tmp/g1/sweep_ab.md $OUT/sweep_ab.md
  for c in "u8 48x50177 13" "f32 50177x48 3" "f16 4095x4099 1" "u8 5760x5760 1" "f64 32x131072 1" "u8 50177x12 55"; do
    set -- $c
    echo "######## $1 $2 batch $3"
    timeout 60 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
      --section WarpStateStats -k 'regex:slab|tile|realign|skew|interleave|whole' -c 1 \
      $B --variants best --dtype $1 --size $2 --batch $3 --reps 1 2>&1 | grep -v "^==PROF==" | tail -90
  done >$OUT/ncu.txt 2>&1 ) &
wait
tail -4 $OUT/halo_ctest.txt
tail -5 $OUT/sweep_torch.txt
cat /tmp/g1/summary.txt | grep -v "^|" | head -60
python3 bench/sweep_summary.py /tmp/g1/sweep_ab.md 2>/dev/null | head -40
grep -E "halo" /tmp/g1/sweep_ab.md | head -30
tar czf $OUT/g1.tgz -C /tmp g1
ls -la $OUT
