#!/usr/bin/env bash
# Builds the SLEEF powf oracle (oracle.c) against a built SLEEF library: its static libsleef.a and
# sleef.h. SLEEF is not vendored; build it from https://github.com/shibatch/sleef (tags 3.5.1 or
# 3.6, CMake defaults: its libm is always compiled with -ffp-contract=off), e.g.
#   cmake -S sleef -B sleef/build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTS=OFF && cmake --build sleef/build -j2
#
# Usage: SLEEF_DIR=/path/to/sleef/build tools/sleef_oracle/build.sh [OUT_DIR]
#        (default OUT_DIR: .build/sleef_oracle, git-ignored)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="${1:-$(cd "$HERE/../.." && pwd)/.build/sleef_oracle}"
SLEEF_DIR="${SLEEF_DIR:?set SLEEF_DIR to a built SLEEF (holding include/sleef.h and lib/libsleef.a)}"
[ -f "$SLEEF_DIR/include/sleef.h" ] && [ -f "$SLEEF_DIR/lib/libsleef.a" ] ||
  { echo "no include/sleef.h or lib/libsleef.a under $SLEEF_DIR" >&2; exit 2; }
mkdir -p "$OUT"
# The harness only moves data; -mavx512f lets it name the 512-bit types (it checks the CPU first).
"${CC:-gcc}" -O2 -mavx2 -mfma -mavx512f -ffp-contract=off -I"$SLEEF_DIR/include" \
  -o "$OUT/sleef_oracle" "$HERE/oracle.c" "$SLEEF_DIR/lib/libsleef.a" -lm
"$OUT/sleef_oracle" info
