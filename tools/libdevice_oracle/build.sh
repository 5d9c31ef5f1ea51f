#!/usr/bin/env bash
# Builds the libdevice CPU oracle: the CUDA toolkit's own libdevice bitcode, retargeted to x86-64
# with LLVM 14 and linked with exact C replacements of the NVVM intrinsics and a C model of the
# MUFU instructions (mufu.c, which reads tables/sfu/tesla_sfu_v1.bin at run time: env SFU_TABLES).
#
# Usage: tools/libdevice_oracle/build.sh [OUT_DIR]   (default: .build/libdevice_oracle, git-ignored)
# Env:   LIBDEVICE=/usr/local/cuda/nvvm/libdevice/libdevice.10.bc
# The toolkit's bitcode is read in place and never copied into the repository: OUT_DIR is
# git-ignored build output (only derived objects and the retargeted IR live there).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="${1:-$(cd "$HERE/../.." && pwd)/.build/libdevice_oracle}"
LIBDEVICE="${LIBDEVICE:-/usr/local/cuda/nvvm/libdevice/libdevice.10.bc}"
FUNCS=(sinf cosf logf expf exp2f rsqrtf tanhf fmaf_rn fmaf_rz fmaf_ru fmaf_rd
  fadd_rn fadd_rz fadd_ru fadd_rd fmul_rn fmul_rz fmul_ru fmul_rd
  fdiv_rn fdiv_rz fdiv_ru fdiv_rd fsqrt_rn fsqrt_rz fsqrt_ru fsqrt_rd
  float2int_rn float2int_rz float2int_ru float2int_rd saturatef powf)

need() { command -v "$1" >/dev/null 2>&1; }
if ! need llvm-extract-14 || ! need llc-14 || ! need llvm-dis-14 || ! need llvm-as-14; then
  echo "installing llvm-14" >&2
  apt-get update && apt-get install -y llvm-14
fi
CC="${CC:-}"
if [ -z "$CC" ]; then
  if need clang-14; then CC=clang-14; elif need gcc; then CC=gcc; else
    apt-get update && apt-get install -y clang-14 && CC=clang-14
  fi
fi
[ -f "$LIBDEVICE" ] || { echo "libdevice not found: $LIBDEVICE" >&2; exit 2; }

mkdir -p "$OUT"
args=()
for f in "${FUNCS[@]}"; do args+=("--func=__nv_$f"); done
llvm-extract-14 "${args[@]}" --glob=__cudart_i2opi_f --glob=.str "$LIBDEVICE" -o "$OUT/extract.bc"
llvm-dis-14 "$OUT/extract.bc" -o "$OUT/extract.ll"
perl "$HERE/retarget.pl" <"$OUT/extract.ll" >"$OUT/x86.ll"
if grep -n ' asm \|nvvm\.\|addrspace' "$OUT/x86.ll"; then
  echo "retargeting left NVPTX-only constructs (above)" >&2
  exit 3
fi
llvm-as-14 "$OUT/x86.ll" -o "$OUT/x86.bc"
llc-14 -O2 --fp-contract=off -relocation-model=pic -filetype=obj "$OUT/x86.bc" -o "$OUT/libdevice_x86.o"
"$CC" -O2 -ffp-contract=off -frounding-math -fno-fast-math -o "$OUT/libdevice_oracle" \
  "$HERE/intrinsics.c" "$HERE/mufu.c" "$HERE/harness.c" "$OUT/libdevice_x86.o" -lm
{
  echo "libdevice: $LIBDEVICE"
  sha256sum "$LIBDEVICE"
  (command -v nvcc >/dev/null && nvcc --version || /usr/local/cuda/bin/nvcc --version) 2>/dev/null | tail -2
  llc-14 --version | head -2
  "$CC" --version | head -1
} >"$OUT/PROVENANCE.txt"
echo "$OUT/libdevice_oracle"
