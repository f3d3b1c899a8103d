#!/usr/bin/env bash
# Hostile command lines for xpose-bench (issue 7): each must exit with code 2, print
# exactly one line on stderr and nothing on stdout, and never crash or hang.
# usage: tests/cli/hostile.sh PATH/TO/xpose-bench
set -u
bench=${1:?usage: $0 PATH/TO/xpose-bench}
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

echo "hostile.sh: $n command lines, $fails failures"
[ "$fails" -eq 0 ]
