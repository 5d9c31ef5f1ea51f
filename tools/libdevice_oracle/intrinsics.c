/*
 * Exact C replacements of the NVVM intrinsics that libdevice calls, for the x86-64 oracle.
 * Compiled with -ffp-contract=off -frounding-math: every operation below is one IEEE binary32
 * operation (SSE), rounded in the mode set by fesetround. fmaf is glibc's correctly rounded
 * fused multiply-add, which honours the current rounding mode. `.ftz` variants flush subnormal
 * inputs and results (after rounding) to zeros of the same sign. __nvvm_reflect("__CUDA_FTZ")
 * returns 0 (the default non-FTZ build). The MUFU instructions are modelled in mufu.c.
 */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma STDC FENV_ACCESS ON

int __nvvm_reflect(const char *name) {
  static const char *checked = NULL; /* the bitcode's constant string, once compared */
  if (name == checked) return 0;
  if (strcmp(name, "__CUDA_FTZ") != 0) {
    fprintf(stderr, "unexpected __nvvm_reflect(%s)\n", name);
    abort();
  }
  checked = name;
  return 0;
}

static float flush(float x) { return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x; }

/* The rounding mode is round-to-nearest between calls (every directed operation restores it), so
 * the round-to-nearest operations skip fesetround, which dominates the oracle's run time. */
static void enter(int mode) { if (mode != FE_TONEAREST) fesetround(mode); }
static void leave(int mode) { if (mode != FE_TONEAREST) fesetround(FE_TONEAREST); }

#define MODES(X) X(rn, FE_TONEAREST) X(rz, FE_TOWARDZERO) X(rm, FE_DOWNWARD) X(rp, FE_UPWARD)

#define DEF_OPS(name, mode)                                                               \
  float oracle_nvvm_fma_##name##_f(float a, float b, float c) {                            \
    enter(mode); volatile float r = fmaf(a, b, c); leave(mode); return r; \
  }                                                                                       \
  float oracle_nvvm_fma_##name##_ftz_f(float a, float b, float c) {                        \
    return flush(oracle_nvvm_fma_##name##_f(flush(a), flush(b), flush(c)));                \
  }                                                                                       \
  float oracle_nvvm_add_##name##_f(float a, float b) {                                     \
    enter(mode); volatile float r = a + b; leave(mode); return r;        \
  }                                                                                       \
  float oracle_nvvm_add_##name##_ftz_f(float a, float b) {                                 \
    return flush(oracle_nvvm_add_##name##_f(flush(a), flush(b)));                          \
  }                                                                                       \
  float oracle_nvvm_mul_##name##_f(float a, float b) {                                     \
    enter(mode); volatile float r = a * b; leave(mode); return r;        \
  }                                                                                       \
  float oracle_nvvm_mul_##name##_ftz_f(float a, float b) {                                 \
    return flush(oracle_nvvm_mul_##name##_f(flush(a), flush(b)));                          \
  }                                                                                       \
  float oracle_nvvm_div_##name##_f(float a, float b) {                                     \
    enter(mode); volatile float r = a / b; leave(mode); return r;        \
  }                                                                                       \
  float oracle_nvvm_div_##name##_ftz_f(float a, float b) {                                 \
    return flush(oracle_nvvm_div_##name##_f(flush(a), flush(b)));                          \
  }                                                                                       \
  float oracle_nvvm_sqrt_##name##_f(float a) {                                             \
    enter(mode); volatile float r = sqrtf(a); leave(mode); return r;     \
  }                                                                                       \
  float oracle_nvvm_sqrt_##name##_ftz_f(float a) {                                         \
    return flush(oracle_nvvm_sqrt_##name##_f(flush(a)));                                   \
  }                                                                                       \
  int32_t oracle_nvvm_f2i_##name(float a) {                                                \
    if (isnan(a)) return 0;                                                               \
    if (a >= 2147483648.0f) return INT32_MAX;                                             \
    if (a < -2147483648.0f) return INT32_MIN;                                             \
    enter(mode); volatile float r = nearbyintf(a); leave(mode);         \
    return (int32_t)r;                                                                    \
  }                                                                                       \
  int32_t oracle_nvvm_f2i_##name##_ftz(float a) { return oracle_nvvm_f2i_##name(flush(a)); }

MODES(DEF_OPS)

float oracle_nvvm_fabs_f(float a) { return fabsf(a); }
float oracle_nvvm_fabs_ftz_f(float a) { return fabsf(flush(a)); }

/* cvt.sat.f32.f32: NaN -> +0; values <= 0 (-0 included) -> +0; above 1 -> 1. */
float oracle_nvvm_saturate_f(float a) {
  if (isnan(a) || a <= 0.0f) return 0.0f;
  return a > 1.0f ? 1.0f : a;
}
float oracle_nvvm_saturate_ftz_f(float a) { return oracle_nvvm_saturate_f(flush(a)); }

/* The MUFU intrinsics (ex2/rsqrt.approx[.ftz].f32 and the inline-asm rcp.approx.ftz.f32) are in
 * mufu.c. */

/*
 * The rounding intrinsics libdevice's __nv_powf calls, as exact C replacements (PTX semantics
 * checked by lowering each intrinsic with llc-14 -march=nvptx64: round.f -> cvt.rni.f32.f32,
 * trunc.f -> cvt.rzi.f32.f32, floor.f -> cvt.rmi.f32.f32). Rounding mode is round-to-nearest
 * between calls.
 */
float oracle_nvvm_trunc_f(float a) { return truncf(a); }
float oracle_nvvm_trunc_ftz_f(float a) { return truncf(flush(a)); }
float oracle_nvvm_floor_f(float a) { return floorf(a); }
float oracle_nvvm_floor_ftz_f(float a) { return floorf(flush(a)); }
/* cvt.rni: nearest integer, ties to even (rintf in the default round-to-nearest mode). */
float oracle_nvvm_round_f(float a) { return rintf(a); }
float oracle_nvvm_round_ftz_f(float a) { return rintf(flush(a)); }
