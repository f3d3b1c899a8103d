#!/usr/bin/env bash
# Hostile command lines for xpose-bench: each must exit with code 2, print
# exactly one line on stderr and nothing on stdout, and never crash or hang.
# usage: tests/cli/hostile.sh PATH/TO/xpose-bench
set -u
bench=${1:?usage: $0 PATH/TO/xpose-bench}
bench=$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench")
[ -x "$bench" ] || { echo "hostile.sh: $bench is not executable"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0

expect_usage_error() {
  n=$((n + 1))
  timeout 60 "$bench" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  local rc=$? lines out_bytes
  lines=$(wc -l <"$tmp/err")
  out_bytes=$(wc -c <"$tmp/out")
  # exactly one line: one newline-terminated line and no unterminated tail
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [ "$(tail -c1 "$tmp/err" | od -An -c | tr -d ' ')" != '\n' ] ||
     [ "$out_bytes" -ne 0 ]; then
    fails=$((fails + 1))
    echo "FAIL: xpose-bench $*"
    echo "  exit $rc (want 2), $lines stderr lines (want 1), $out_bytes stdout bytes (want 0)"
    sed 's/^/  stderr: /' "$tmp/err" | head -5
    sed 's/^/  stdout: /' "$tmp/out" | head -5
  else
    echo "ok: xpose-bench $* -> $(cat "$tmp/err")"
  fi
}

# sizes
expect_usage_error --size -1x4
expect_usage_error --size 4x-1
expect_usage_error --size abc
expect_usage_error --size 4x
expect_usage_error --size x4
expect_usage_error --size 4x4x4
expect_usage_error --size ''
expect_usage_error --size 99999999999x99999999999
expect_usage_error --size 18446744073709551617x2
expect_usage_error --size 300000x300000          # 360 GB per buffer: more than any GPU or host here
expect_usage_error --size 4x4,abc
# dtypes and variants
expect_usage_error --dtype f7
expect_usage_error --dtype ''
expect_usage_error --dtype f32,nope
expect_usage_error --variants nope
expect_usage_error --variants tiled,nope
# counts and choices
expect_usage_error --reps 0
expect_usage_error --reps -3
expect_usage_error --reps abc
expect_usage_error --warmup -1
expect_usage_error --batch -1
expect_usage_error --threads -2
expect_usage_error --block 16x16
expect_usage_error --format xml
# flags
expect_usage_error --bogus-flag
expect_usage_error --size
expect_usage_error --reps 1e99
expect_usage_error extra-positional

# output paths checked before the run, bounds, empty names
expect_usage_error --out ''
expect_usage_error --plot ''
expect_usage_error --out /nonexistent-dir/x.txt
expect_usage_error --out "$tmp"
expect_usage_error --plot /nonexistent-dir/x.png
expect_usage_error --warmup 2147483647
expect_usage_error --warmup 10001
expect_usage_error ttc --warmup 2147483647
expect_usage_error permute --shape 2x3 --warmup 10001
expect_usage_error --threads 40000
expect_usage_error --threads 2147483647
expect_usage_error --peak-gbs nan
expect_usage_error --peak-gbs inf
expect_usage_error --device -1
# Without a GPU: lab and GPU variants say so in one line (not "unknown variant").
if ! "$bench" --size 2x2 --reps 1 --warmup 0 --format json 2>/dev/null | grep -q '"backend": "gpu"'; then
  expect_usage_error lab
  expect_usage_error --variants best
  grep -q "needs a GPU" "$tmp/err" || grep -q "runs on the GPU" "$tmp/err" ||
    { fails=$((fails + 1)); echo "FAIL: --variants best without a GPU: $(cat "$tmp/err")"; }
fi

# Without a GPU the reason is said once, and names a missing driver as such.
n=$((n + 1))
both=$("$bench" --size 2x2 --reps 1 --warmup 0 2>&1)
said=$(grep -c "no GPU found" <<<"$both")
if grep -q '"backend": "gpu"' < <("$bench" --size 2x2 --reps 1 --warmup 0 --format json 2>/dev/null); then
  echo "ok: a GPU is present: no-GPU reason not tested"
elif [ "$said" -ne 1 ] || { ! grep -q "built without CUDA" <<<"$both" && ! ldconfig -p | grep -q "libcuda.so.1" &&
                             ! grep -q "no CUDA driver" <<<"$both"; }; then
  fails=$((fails + 1)); echo "FAIL: no-GPU reason said $said times (want 1), or a missing driver not named:"
  grep "no GPU" <<<"$both" | sed 's/^/  /'
else echo "ok: no-GPU reason said once: $(grep "no GPU found" <<<"$both")"; fi

# A write error after the run (a full disk): exit 1, one line, not 0.
n=$((n + 1))
timeout 60 "$bench" --size 8x8 --reps 1 --warmup 0 --out /dev/full >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 1 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
  fails=$((fails + 1)); echo "FAIL: --out /dev/full: exit $rc (want 1)"; sed 's/^/  stderr: /' "$tmp/err"
else echo "ok: --out /dev/full -> exit 1: $(cat "$tmp/err")"; fi

# A huge OpenMP default must not reach libgomp (it exited or crashed): exit 0.
n=$((n + 1))
OMP_NUM_THREADS=100000 timeout 120 "$bench" --cpu --size 64x64 --reps 1 --warmup 0 >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 0 ]; then
  fails=$((fails + 1)); echo "FAIL: OMP_NUM_THREADS=100000: exit $rc"; sed 's/^/  stderr: /' "$tmp/err" | head -3
else echo "ok: OMP_NUM_THREADS=100000 -> exit 0"; fi

# --plot never goes through a shell: a name with quotes and ';' is just a file name.
# With matplotlib the plot is drawn (exit 0); without it, exit 1 and one line.
n=$((n + 1))
(cd "$tmp" && timeout 120 "$bench" --cpu --size 8x8 --reps 1 --warmup 0 --plot "x.png'; touch PWNED; echo '" \
   >/dev/null 2>"$tmp/err")
rc=$?
if [ -e "$tmp/PWNED" ] || { [ "$rc" -ne 0 ] && { [ "$rc" -ne 1 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; }; } ||
   { [ "$rc" -eq 0 ] && [ ! -s "$tmp/x.png'; touch PWNED; echo '" ]; }; then
  fails=$((fails + 1)); echo "FAIL: --plot with shell metacharacters: exit $rc, PWNED $([ -e "$tmp/PWNED" ] && echo created || echo absent)"
  sed 's/^/  stderr: /' "$tmp/err" | head -3
else echo "ok: --plot with shell metacharacters -> exit $rc, no command run"; fi

# A plot that fails (no such interpreter): exit 1, one line, no claim of a data file that is not there.
n=$((n + 1))
(cd "$tmp" && XPOSE_PYTHON=/nonexistent/python timeout 60 "$bench" --cpu --size 8x8 --reps 1 --warmup 0 \
   --plot p.png >/dev/null 2>"$tmp/err")
rc=$?
kept=$(sed -n 's/.*measurements are in \(.*\)$/\1/p' "$tmp/err")
if [ "$rc" -ne 1 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || { [ -n "$kept" ] && [ ! -s "$tmp/$kept" ]; }; then
  fails=$((fails + 1)); echo "FAIL: failing plot: exit $rc (want 1)"; sed 's/^/  stderr: /' "$tmp/err" | head -3
else echo "ok: failing plot -> exit 1: $(cat "$tmp/err")"; fi

# --help names the defaults and the exit codes; --list names the CPU variants.
n=$((n + 1))
help=$("$bench" --help 2>&1)
if ! grep -q "Exit codes" <<<"$help" || ! grep -q "reps INT=20" <<<"$help" || ! "$bench" --list | grep -q "^xpose_cpu"; then
  fails=$((fails + 1)); echo "FAIL: --help lacks defaults / exit codes, or --list lacks the CPU variants"
else echo "ok: --help shows defaults and exit codes; --list shows CPU variants"; fi

# Both dtype spellings; the CSV has shape and dtype columns.
n=$((n + 1))
csv=$("$bench" --cpu --size 4x6 --reps 1 --warmup 0 --dtype float32 --format csv --variants xpose_cpu 2>/dev/null)
if ! grep -q "^shape,dtype,variant" <<<"$csv" || ! grep -q "^4x6,f32,xpose_cpu" <<<"$csv"; then
  fails=$((fails + 1)); echo "FAIL: --dtype float32 / CSV columns:"; echo "$csv" | head -3
else echo "ok: --dtype float32 accepted; CSV shape,dtype columns"; fi

echo "hostile.sh: $n command lines, $fails failures"
[ "$fails" -eq 0 ]
