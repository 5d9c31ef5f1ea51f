/*
 * Exact C replacements of the NVVM intrinsics that libdevice calls, for the x86-64 oracle.
 * Compiled with -ffp-contract=off -frounding-math: every operation below is one IEEE binary32
 * operation (SSE), rounded in the mode set by fesetround. fmaf is glibc's correctly rounded
 * fused multiply-add, which honours the current rounding mode. `.ftz` variants flush subnormal
 * inputs and results (after rounding) to zeros of the same sign. __nvvm_reflect("__CUDA_FTZ")
 * returns 0 (the default non-FTZ build). The MUFU instructions call hooks (see harness.c).
 */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma STDC FENV_ACCESS ON

int __nvvm_reflect(const char *name) {
  if (strcmp(name, "__CUDA_FTZ") != 0) {
    fprintf(stderr, "unexpected __nvvm_reflect(%s)\n", name);
    abort();
  }
  return 0;
}

static float flush(float x) { return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x; }

#define MODES(X) X(rn, FE_TONEAREST) X(rz, FE_TOWARDZERO) X(rm, FE_DOWNWARD) X(rp, FE_UPWARD)

#define DEF_OPS(name, mode)                                                               \
  float oracle_nvvm_fma_##name##_f(float a, float b, float c) {                            \
    fesetround(mode); volatile float r = fmaf(a, b, c); fesetround(FE_TONEAREST); return r; \
  }                                                                                       \
  float oracle_nvvm_fma_##name##_ftz_f(float a, float b, float c) {                        \
    return flush(oracle_nvvm_fma_##name##_f(flush(a), flush(b), flush(c)));                \
  }                                                                                       \
  float oracle_nvvm_add_##name##_f(float a, float b) {                                     \
    fesetround(mode); volatile float r = a + b; fesetround(FE_TONEAREST); return r;        \
  }                                                                                       \
  float oracle_nvvm_add_##name##_ftz_f(float a, float b) {                                 \
    return flush(oracle_nvvm_add_##name##_f(flush(a), flush(b)));                          \
  }                                                                                       \
  float oracle_nvvm_mul_##name##_f(float a, float b) {                                     \
    fesetround(mode); volatile float r = a * b; fesetround(FE_TONEAREST); return r;        \
  }                                                                                       \
  float oracle_nvvm_mul_##name##_ftz_f(float a, float b) {                                 \
    return flush(oracle_nvvm_mul_##name##_f(flush(a), flush(b)));                          \
  }                                                                                       \
  float oracle_nvvm_div_##name##_f(float a, float b) {                                     \
    fesetround(mode); volatile float r = a / b; fesetround(FE_TONEAREST); return r;        \
  }                                                                                       \
  float oracle_nvvm_div_##name##_ftz_f(float a, float b) {                                 \
    return flush(oracle_nvvm_div_##name##_f(flush(a), flush(b)));                          \
  }                                                                                       \
  float oracle_nvvm_sqrt_##name##_f(float a) {                                             \
    fesetround(mode); volatile float r = sqrtf(a); fesetround(FE_TONEAREST); return r;     \
  }                                                                                       \
  float oracle_nvvm_sqrt_##name##_ftz_f(float a) {                                         \
    return flush(oracle_nvvm_sqrt_##name##_f(flush(a)));                                   \
  }                                                                                       \
  int32_t oracle_nvvm_f2i_##name(float a) {                                                \
    if (isnan(a)) return 0;                                                               \
    if (a >= 2147483648.0f) return INT32_MAX;                                             \
    if (a < -2147483648.0f) return INT32_MIN;                                             \
    fesetround(mode); volatile float r = nearbyintf(a); fesetround(FE_TONEAREST);         \
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

/* MUFU hooks: no model is linked in this oracle; a function that needs one aborts. */
float (*oracle_mufu_ex2)(float) = NULL;
float (*oracle_mufu_rcp)(float) = NULL;
float (*oracle_mufu_rsqrt)(float) = NULL;

static float no_mufu(const char *what) {
  fprintf(stderr, "MUFU %s called but no MUFU model is linked into the oracle\n", what);
  abort();
}
float oracle_nvvm_ex2_approx_ftz_f(float a) { return oracle_mufu_ex2 ? oracle_mufu_ex2(a) : no_mufu("ex2"); }
float oracle_nvvm_ex2_approx_f(float a) { return oracle_mufu_ex2 ? oracle_mufu_ex2(a) : no_mufu("ex2"); }
float oracle_mufu_rcp_ftz(float a) { return oracle_mufu_rcp ? oracle_mufu_rcp(a) : no_mufu("rcp"); }
float oracle_nvvm_rsqrt_approx_ftz_f(float a) { return oracle_mufu_rsqrt ? oracle_mufu_rsqrt(a) : no_mufu("rsqrt"); }
float oracle_nvvm_rsqrt_approx_f(float a) { return oracle_mufu_rsqrt ? oracle_mufu_rsqrt(a) : no_mufu("rsqrt"); }
