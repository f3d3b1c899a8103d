#!/usr/bin/env bash
# The CPU wheel as a user gets it: `auditwheel show` must find it consistent with a
# manylinux policy (no library needed from outside it); it installs into a fresh venv,
# and imports and transposes there while the system's Google Highway and libgomp are
# hidden from the loader (a mount namespace in which they are /dev/null), so only the
# copies auditwheel grafted into the wheel can be loaded.
# Usage: wheel_test.sh WHEELHOUSE PYTHON (PYTHON: an interpreter with auditwheel)
set -euo pipefail
wheelhouse=$1 py=$2
fail() { echo "wheel_test: FAILED: $*" >&2; exit 1; }

whl=$(ls -t "$wheelhouse"/xpose-*+cpu-*manylinux*.whl 2>/dev/null | head -1)
[ -n "$whl" ] || fail "no repaired CPU wheel (xpose-*+cpu-*manylinux*.whl) in $wheelhouse (make wheel)"
echo "wheel_test: $whl"
show=$("$py" -m auditwheel show "$whl") || fail "auditwheel show: $show"
echo "$show"
flat=$(tr -s ' \n' '  ' <<<"$show")  # auditwheel wraps its sentences
grep -q 'consistent with the following platform tag: "manylinux' <<<"$flat" ||
  fail "auditwheel show finds the wheel consistent with no manylinux tag"
if grep -qi 'external shared libraries are required' <<<"$flat"; then
  fail "the wheel needs shared libraries outside the manylinux policy"
fi
# The listing is read whole first: `unzip -l | grep -q` under pipefail fails when grep
# stops at its match and unzip dies of SIGPIPE on the rest of the listing.
listing=$(unzip -l "$whl") || fail "unzip -l $whl"
grep -q 'xpose.libs/libhwy' <<<"$listing" || fail "libhwy is not carried in the wheel"
grep -q 'xpose.libs/libgomp' <<<"$listing" || fail "libgomp is not carried in the wheel"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --disable-pip-version-check "$whl" ||
  fail "pip install of the wheel into a fresh venv"

command -v unshare >/dev/null || fail "unshare is not installed (util-linux): the system libraries cannot be hidden"
hidden=()
for name in libhwy.so.1 libgomp.so.1; do
  for dir in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do
    [ -e "$dir/$name" ] && hidden+=("$(readlink -f "$dir/$name")")
  done
done
mapfile -t hidden < <(printf '%s\n' "${hidden[@]}" | sort -u)
# In the namespace: hide them, prove they are hidden, then import and transpose.
cat > "$work/inner.sh" <<'INNER'
set -euo pipefail
py=$1; shift
for f in "$@"; do mount --bind /dev/null "$f"; done
"$py" - <<'PY'
import ctypes, sys
for lib in ("libhwy.so.1", "libgomp.so.1"):
    try:
        ctypes.CDLL(lib)
    except OSError:
        continue
    sys.exit(f"wheel_test: the system's {lib} is still loadable: the test would prove nothing")
import numpy as np
import xpose
x = np.arange(6 * 7, dtype=np.float32).reshape(6, 7)
y = xpose.transpose(x)
assert np.array_equal(np.asarray(y), x.T), "transpose differs from numpy"
maps = open("/proc/self/maps").read()
libs = sorted({l.split()[-1] for l in maps.splitlines() if "libhwy" in l or "libgomp" in l})
assert libs and all("xpose.libs" in l for l in libs), libs
print(f"wheel_test: xpose {xpose.__version__} imported and transposed with the system's libhwy "
      f"and libgomp hidden; loaded: {', '.join(libs)}")
PY
INNER
unshare -m bash "$work/inner.sh" "$work/venv/bin/python" "${hidden[@]}" ||
  fail "import or transpose with the system libraries hidden (or unshare -m refused: it needs root or user namespaces)"
echo "wheel_test: ok"
