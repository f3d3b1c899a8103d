#!/usr/bin/env bash
# Copies this machine's Google Highway (Debian libhwy-dev: headers, libhwy.so, a
# relocatable pkg-config file) into .deps/hwy, for a machine without libhwy-dev: copy the
# tree with .deps there, and scripts/gpu.sh (or PKG_CONFIG_PATH=.deps/hwy/lib/pkgconfig
# and LD_LIBRARY_PATH=.deps/hwy/lib) picks it up.
set -euo pipefail
cd "$(dirname "$0")/.."
lib=$(pkg-config --variable=libdir libhwy)
rm -rf .deps/hwy && mkdir -p .deps/hwy/include .deps/hwy/lib/pkgconfig
cp -r "$(pkg-config --variable=includedir libhwy)/hwy" .deps/hwy/include/
for f in libhwy.so libhwy.so.1; do cp -L "$lib/$f" .deps/hwy/lib/$f; done
sed -e 's|^prefix=.*|prefix=${pcfiledir}/../..|' -e 's|^libdir=.*|libdir=${prefix}/lib|' \
    -e 's|^exec_prefix=.*||' "$lib/pkgconfig/libhwy.pc" > .deps/hwy/lib/pkgconfig/libhwy.pc
echo "carry-hwy: .deps/hwy ($(du -sh .deps/hwy | cut -f1))"
