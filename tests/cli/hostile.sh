#!/usr/bin/env bash
# Hostile command lines for xpose-bench: each must exit with code
# 2, print exactly one line on stderr and nothing on stdout, and never crash or hang;
# every subcommand and every numeric option, output files (links, devices, a full
# disk), allocation failures, thread counts; then every subcommand's --help, --format
# and --out.
# usage: tests/cli/hostile.sh PATH/TO/xpose-bench
set -u
bench=${1:?usage: $0 PATH/TO/xpose-bench}
bench=$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench")
[ -x "$bench" ] || { echo "hostile.sh: $bench is not executable"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0

expect_usage_error() {
  want_in_err=""
  run_usage_error "$@"
}

# expect_mention WORD ARGS...: a usage error whose line names WORD (the option at fault).
expect_mention() {
  want_in_err=$1
  shift
  run_usage_error "$@"
}

run_usage_error() {
  n=$((n + 1))
  timeout 60 "$bench" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  local rc=$? lines out_bytes
  lines=$(wc -l <"$tmp/err")
  out_bytes=$(wc -c <"$tmp/out")
  # exactly one line: one newline-terminated line and no unterminated tail
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [ "$(tail -c1 "$tmp/err" | od -An -c | tr -d ' ')" != '\n' ] ||
     [ "$out_bytes" -ne 0 ] || { [ -n "$want_in_err" ] && ! grep -qF -- "$want_in_err" "$tmp/err"; }; then
    fails=$((fails + 1))
    echo "FAIL: xpose-bench $*"
    echo "  exit $rc (want 2), $lines stderr lines (want 1), $out_bytes stdout bytes (want 0)${want_in_err:+, naming $want_in_err}"
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
if ! grep -q "Exit codes" <<<"$help" || ! grep -q "reps INT in \[1, 100000\]=20" <<<"$help" || ! "$bench" --list | grep -q "^ *xpose_cpu"; then
  fails=$((fails + 1)); echo "FAIL: --help lacks defaults / exit codes, or --list lacks the CPU variants"
else echo "ok: --help shows defaults and exit codes; --list shows CPU variants"; fi

# Both dtype spellings; the CSV has shape and dtype columns.
n=$((n + 1))
csv=$("$bench" --cpu --size 4x6 --reps 1 --warmup 0 --dtype float32 --format csv --variants xpose_cpu 2>/dev/null)
if ! grep -q "^shape,dtype,variant" <<<"$csv" || ! grep -q "^4x6,f32,xpose_cpu" <<<"$csv"; then
  fails=$((fails + 1)); echo "FAIL: --dtype float32 / CSV columns:"; echo "$csv" | head -3
else echo "ok: --dtype float32 accepted; CSV shape,dtype columns"; fi

# ---- every subcommand, every numeric option ----
# Each value must be refused naming the option: empty, NaN, infinities, negative,
# fractional, huge; an empty or NaN value never silently becomes the default.
bad_numbers=('' nan NaN inf -inf -1 1e99 99999999999999999999 ' 3' 0x10 1,5 abc)
numeric_case() {  # numeric_case "SUBCOMMAND ARGS" OPTION [int]: whole numbers also refuse 1.5
  local pre=$1 opt=$2 v extra=()
  [ "${3:-int}" = int ] && extra=(1.5 2.0)
  for v in "${bad_numbers[@]}" "${extra[@]}"; do
    # shellcheck disable=SC2086
    expect_mention "$opt" $pre "$opt" "$v"
  done
  expect_mention "$opt" $pre "$opt=" # --opt= (an empty value in one word)
}
for o in --batch --warmup --reps --device --threads; do numeric_case "--size 2x2" $o; done
numeric_case "--size 2x2" --peak-gbs real
for o in --warmup --reps --device; do numeric_case "lab" $o; done
numeric_case lab --peak-gbs real
for o in --batch --warmup --reps --threads; do numeric_case "cpu --size 2x2" $o; done
for o in --batch --warmup --reps --device --threads; do numeric_case "inplace --size 2x2" $o; done
for o in --reps --device; do numeric_case "sweep" $o; done
numeric_case sweep --mib real
for o in --threads --warmup --reps; do numeric_case "permute --shape 2x3" $o; done
for o in --threads --warmup --reps; do numeric_case "ttc --cases 0" $o; done
numeric_case "ttc --cases 0" --scale-mib real
for v in '' nan -1 57 1.5 0,,1; do expect_mention "case" ttc --cases "$v"; done
for v in '' nan 2x-1 2xinf 2x 1e9x1e9 99999999999999x99999999999999; do expect_usage_error permute --shape "$v"; done
for v in '' nan -1 0,0 0,1,2 1.5; do expect_usage_error permute --shape 2x3 --axes "$v"; done
for v in '' nan 2x inf 2x2.5; do expect_usage_error cpu --size "$v"; expect_usage_error inplace --size "$v"; done
expect_mention "--threads" --threads 100000
expect_mention "--threads" permute --shape 2x3 --threads 100000
# permute --random: counts, element sizes, sizes, seeds and threads out of range
for v in '' 0 -1 100001 nan 1e9; do expect_usage_error permute --random "$v" --cpu; done
for v in '' 3 1,3 0 32 x; do expect_usage_error permute --random 1 --dtype "$v" --cpu; done
for v in '' 4 0:1 2:1 1:99999 nan:1 a:b; do expect_usage_error permute --random 1 --mib "$v" --cpu; done
for v in -1 x 1.5; do expect_usage_error permute --random 1 --seed "$v" --cpu; done
for v in '' -0.5 1.5 nan x 0.5x; do expect_usage_error permute --random 1 --batches "$v" --cpu; done
for v in '' -1 2 inf 0.2.1; do expect_usage_error permute --random 1 --kept "$v" --cpu; done
expect_mention "--threads" permute --random 1 --cpu --threads 100000
expect_mention "--threads" ttc --threads 100000
expect_mention "--mib" sweep --mib 0.5
# Options of one subcommand are not silently taken by another.
expect_mention "--size" --size 2x2 permute --shape 2x3
expect_mention "--shape" cpu --shape 2x3
expect_usage_error lab --cpu
expect_usage_error cpu --sweep --size 4x4
expect_usage_error nosuchcommand
expect_usage_error permute
# Sizes beyond the memory: refused before anything is allocated.
expect_mention "needs" permute --shape 100000x100000 --dtype c128 --cpu

# ---- output files ----
for sub in "" cpu inplace "permute --shape 2x3" ttc sweep lab; do
  expect_mention "--out" $sub --out ''
  expect_mention "--out" $sub --out "$tmp"
  expect_mention "--out" $sub --out /nonexistent-dir/x.txt
  expect_mention "--format" $sub --format xml
done
# A newline in a file name is escaped: the error stays one line.
expect_mention "--out" --out $'/nonexistent\ndir/x.txt'
expect_mention "--plot" --plot $'/nonexistent\ndir/x.png'
expect_mention "--out" permute --shape 2x3 --out $'/no\nsuch/x'
# A symbolic link at --out or --plot is never written through, and its target keeps its bytes.
mkdir -p "$tmp/links" && echo precious >"$tmp/links/victim"
ln -sf victim "$tmp/links/out.txt"
ln -sf victim "$tmp/links/p.png"
ln -sf /nonexistent-target "$tmp/links/dangling"
small="--reps 1 --warmup 0 --quiet"
expect_mention "link" cpu --size 4x4 $small --out "$tmp/links/out.txt"
expect_mention "link" permute --shape 4x4 --cpu $small --out "$tmp/links/out.txt"
expect_mention "link" ttc --cases 0 --scale-mib 1 --cpu $small --out "$tmp/links/out.txt"
expect_mention "link" inplace --cpu --size 4x6 $small --out "$tmp/links/out.txt"
expect_mention "link" cpu --size 4x4 $small --plot "$tmp/links/p.png"
expect_mention "link" --cpu --size 4x4 $small --out "$tmp/links/dangling"
n=$((n + 1))
if [ "$(cat "$tmp/links/victim")" != precious ] || [ -e /nonexistent-target ]; then
  fails=$((fails + 1)); echo "FAIL: a symbolic link's target was written"
else echo "ok: symbolic links at --out / --plot: their targets unchanged"; fi
# --plot F never touches F.json or F.log: planted links and a user's files stay as they were.
ln -sf victim "$tmp/links/q.png.json"
ln -sf victim "$tmp/links/q.png.log"
echo mine >"$tmp/links/r.png.json"
echo mine >"$tmp/links/r.png.log"
for f in q r; do
  (cd "$tmp/links" && XPOSE_PYTHON=/nonexistent/python timeout 60 "$bench" cpu --size 4x4 $small --plot "$f.png" \
     >/dev/null 2>"$tmp/err")
done
n=$((n + 1))
if [ "$(cat "$tmp/links/victim")" != precious ] || [ ! -L "$tmp/links/q.png.json" ] || [ ! -L "$tmp/links/q.png.log" ] ||
   [ "$(cat "$tmp/links/r.png.json" "$tmp/links/r.png.log")" != "$(printf 'mine\nmine')" ]; then
  fails=$((fails + 1)); echo "FAIL: --plot F wrote, truncated or deleted F.json / F.log"
  ls -la "$tmp/links" | sed 's/^/  /'
else echo "ok: --plot F leaves F.json and F.log (links or files) untouched"; fi
# A pre-existing --out file is replaced only by a complete output; a failed run leaves it.
echo before >"$tmp/kept.txt"
timeout 60 "$bench" cpu --size 4x4 $small --reps 0 --out "$tmp/kept.txt" >/dev/null 2>&1
n=$((n + 1))
if [ "$(cat "$tmp/kept.txt")" != before ] || ls -a "$tmp" | grep -q '^\.xpose-bench'; then
  fails=$((fails + 1)); echo "FAIL: a refused run touched --out, or left a temporary directory"
else echo "ok: a refused run leaves --out as it was, no temporary left"; fi

# Every write checked: a full disk on stdout or --out is a non-zero exit, one line.
expect_write_failure() {  # expect_write_failure HOW ARGS... (HOW: stdout | out)
  local how=$1 rc
  shift
  n=$((n + 1))
  if [ "$how" = stdout ]; then timeout 120 "$bench" "$@" >/dev/full 2>"$tmp/err"
  else timeout 120 "$bench" "$@" --out /dev/full >/dev/null 2>"$tmp/err"; fi
  rc=$?
  if [ "$rc" -eq 0 ] || [ "$rc" -gt 2 ] || [ "$(wc -l <"$tmp/err")" -lt 1 ] || ! grep -q "failed" "$tmp/err"; then
    fails=$((fails + 1)); echo "FAIL: xpose-bench $* ($how on /dev/full): exit $rc"; sed 's/^/  stderr: /' "$tmp/err" | head -3
  else echo "ok: xpose-bench $* ($how on /dev/full) -> exit $rc: $(tail -1 "$tmp/err")"; fi
}
for args in "--help" "--list" "--version" "cpu --help" "inplace --help" "permute --help" "ttc --help" "sweep --help" \
            "lab --help"; do
  # shellcheck disable=SC2086
  expect_write_failure stdout $args
done
runs=("--cpu --size 8x8 $small" "cpu --size 8x8 $small" "--inplace --cpu --size 4x6 $small" "inplace --cpu --size 4x6 $small"
      "permute --shape 4x5x6 --cpu $small" "ttc --cases 1 --scale-mib 1 --cpu $small")
for args in "${runs[@]}"; do
  # shellcheck disable=SC2086
  expect_write_failure stdout $args
  # shellcheck disable=SC2086
  expect_write_failure out $args
done
expect_write_failure out --list

# ---- threads and memory ----
# A huge OpenMP default never reaches libgomp unclamped; an allocation failure is exit 2, one line.
for args in "permute --shape 64x64 --cpu" "ttc --cases 0,1 --scale-mib 1 --cpu" "inplace --cpu --size 64x64" \
            "cpu --size 64x64"; do
  n=$((n + 1))
  # shellcheck disable=SC2086
  OMP_NUM_THREADS=100000 timeout 120 "$bench" $args $small >/dev/null 2>"$tmp/err"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    fails=$((fails + 1)); echo "FAIL: OMP_NUM_THREADS=100000 xpose-bench $args: exit $rc"; head -3 "$tmp/err" | sed 's/^/  /'
  else echo "ok: OMP_NUM_THREADS=100000 xpose-bench $args -> exit 0"; fi
done
if [ -z "${XPOSE_SANITIZED:-}" ]; then  # ASan reserves terabytes of address space: no ulimit -v there
  for args in "--cpu --size 4000x4000" "inplace --cpu --size 4000x4000" "permute --shape 6000x6000 --cpu"; do
    # shellcheck disable=SC2086
    (ulimit -v 200000 && expect_usage_error $args $small; exit "$fails") || fails=$((fails + 1))
    n=$((n + 1))
  done
fi

# ---- every subcommand's --help, --format and --out ----
n=$((n + 1))
help=$("$bench" --help 2>&1)
missing=""
for sub in lab cpu inplace sweep permute ttc; do
  grep -q "^  $sub " <<<"$help" || missing+=" $sub"
  "$bench" "$sub" --help >"$tmp/h" 2>&1 && grep -q -- "--format" "$tmp/h" && grep -q -- "--out" "$tmp/h" &&
    grep -q -- "--quiet" "$tmp/h" && grep -q "Exit codes" "$tmp/h" || missing+=" ($sub --help)"
done
if [ -n "$missing" ]; then fails=$((fails + 1)); echo "FAIL: --help lacks:$missing"
else echo "ok: --help lists every subcommand; each SUB --help shows --format, --out, --quiet, exit codes"; fi

n=$((n + 1))
src=$(cd "$(dirname "$0")/../.." && pwd)
version=$(sed -n 's/^project(xpose VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
if [ "$("$bench" --version)" != "xpose-bench $version" ]; then
  fails=$((fails + 1)); echo "FAIL: --version says '$("$bench" --version)', the project is $version"
else echo "ok: --version: xpose-bench $version"; fi

n=$((n + 1))
list=$("$bench" --list)
if [ "$(grep -c '^ *memcpy ' <<<"$list")" -ne 1 ] || grep -q "best_next" <<<"$list" || ! grep -q "^GPU" <<<"$list" ||
   ! grep -q "^CPU" <<<"$list"; then
  fails=$((fails + 1)); echo "FAIL: --list not grouped by backend, memcpy twice or an internal variant:"; sed 's/^/  /' <<<"$list"
else echo "ok: --list grouped by backend, memcpy once, no internal variant"; fi

# Each format on stdout and in --out (the same bytes); json parses; csv has its header first.
check_formats() {  # check_formats ARGS...
  local f rc
  for f in table csv json md; do
    n=$((n + 1))
    rm -f "$tmp/o.$f"
    timeout 120 "$bench" "$@" $small --format $f --out "$tmp/o.$f" >"$tmp/stdout" 2>"$tmp/err"
    rc=$?
    local why=""
    [ "$rc" -eq 0 ] || why="exit $rc"
    cmp -s "$tmp/stdout" "$tmp/o.$f" || why+=" --out differs from stdout"
    case $f in
      json) python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/o.$f" 2>/dev/null || why+=" not JSON" ;;
      csv) head -1 "$tmp/o.$f" | grep -q ',' || why+=" no CSV header" ;;
      md) grep -q '^|' "$tmp/o.$f" || why+=" no markdown table" ;;
    esac
    if [ -n "$why" ]; then fails=$((fails + 1)); echo "FAIL: xpose-bench $* --format $f:$why"; head -3 "$tmp/err" | sed 's/^/  /'
    else echo "ok: xpose-bench $* --format $f (stdout = --out)"; fi
  done
}
check_formats cpu --size 8x8,4x6 --variants xpose_cpu,naive_loop
check_formats --cpu --size 8x8
check_formats inplace --cpu --size 4x6
check_formats --inplace --cpu --size 4x6
check_formats permute --shape 4x5x6 --axes 2,0,1 --cpu
check_formats ttc --cases 0,27 --scale-mib 1 --cpu

# The CPU table names and explains its columns: no block column of "-", no bare numpy or x_ columns.
n=$((n + 1))
t=$("$bench" cpu --size 8x8 $small --variants xpose_cpu,openblas,numpy 2>/dev/null)
head=$(grep '^shape' <<<"$t")
if grep -qE 'block|x_numpy|x_openblas|(^|[^s]) numpy( |$)' <<<"$head" || ! grep -q '^# of memcpy:' <<<"$t" ||
   { grep -q 'vs openblas' <<<"$head" && ! grep -q '^# vs openblas:' <<<"$t"; }; then
  fails=$((fails + 1)); echo "FAIL: CPU table columns:"; sed 's/^/  /' <<<"$t" | head -12
else echo "ok: CPU table columns named and explained: $head"; fi

# Progress: on a terminal one line per case on stderr; never with --quiet or when stderr is not a terminal.
if command -v script >/dev/null; then
  n=$((n + 1))
  script -qec "$bench ttc --cases 0,1 --scale-mib 1 --cpu --reps 1 --warmup 0 --out $tmp/p.txt" /dev/null >"$tmp/tty" 2>&1
  script -qec "$bench ttc --cases 0,1 --scale-mib 1 --cpu --reps 1 --warmup 0 --out $tmp/p.txt --quiet" /dev/null \
    >"$tmp/tty-quiet" 2>&1
  "$bench" ttc --cases 0,1 --scale-mib 1 --cpu --reps 1 --warmup 0 >/dev/null 2>"$tmp/notty"
  if ! grep -q '\[2/2\]' "$tmp/tty" || grep -q '\[1/2\]' "$tmp/tty-quiet" || grep -q '\[1/2\]' "$tmp/notty"; then
    fails=$((fails + 1)); echo "FAIL: progress on a terminal only, off with --quiet"
  else echo "ok: progress on a terminal, none with --quiet or without a terminal"; fi
fi

echo "hostile.sh: $n command lines, $fails failures"
[ "$fails" -eq 0 ]
