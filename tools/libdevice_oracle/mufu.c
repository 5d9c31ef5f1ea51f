/*
 * MUFU model of the libdevice oracle: rcp/rsqrt/ex2.approx.ftz.f32 as the Tesla SFU lookup-table
 * interpolator computes them, plus the non-FTZ forms that the retargeted bitcode calls.
 *
 * Written from the project's specification (/work/shared/spec/sfu_tesla_model.md, sections 1
 * and 6), independently of the TypeScript model in src/hardware/sfu/, so that each checks the
 * other. Special values, and carrying r = 2^24 into the exponent before the flush to zero, are
 * taken from the G80 model the spec cites (envytools nvhw/sfu.c); unlike that model, PREEX2
 * truncates (the spec's hypothesis H1, which the GB200 spot check supports). The ROM coefficients are not carried here: oracle_mufu_load() reads them at run time
 * from tables/sfu/tesla_sfu_v1.bin (format: tables/sfu/README.md); the caller checks the file's
 * sha256 against tables/manifest.json before passing its path (tests/slow/kernels/math/_oracle.ts
 * does). All model arithmetic is exact integer arithmetic in int64.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SFU_FILE_BYTES 5452
static const char *const NAMES[5] = {"rcp", "rsqrt", "ex2", "lg2", "sin"};
static const uint32_t ROWS[5] = {128, 128, 64, 64, 64};
/* Rows [A, B, C] of the three modelled tables (lg2 and sin are validated, then unused). */
static int32_t RCP[128][3], RSQ[128][3], EX2[64][3];
static int loaded = 0;

static uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Reads and validates a version-1 table file; returns 0, or prints why and returns -1. */
int oracle_mufu_load(const char *path) {
  static unsigned char buf[SFU_FILE_BYTES + 1];
  FILE *f = fopen(path, "rb");
  if (!f) { fprintf(stderr, "Cannot load SFU tables: cannot open %s\n", path); return -1; }
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  if (n != SFU_FILE_BYTES) { fprintf(stderr, "Cannot load SFU tables: %zu bytes, expected %d\n", n, SFU_FILE_BYTES); return -1; }
  if (memcmp(buf, "BSFU", 4) != 0 || le32(buf + 4) != 1 || le32(buf + 8) != 5 || le32(buf + 12) != 0) {
    fprintf(stderr, "Cannot load SFU tables: header is not BSFU version 1 with 5 tables\n");
    return -1;
  }
  size_t data = 16 + 5 * 12;
  for (int t = 0; t < 5; t++) {
    const unsigned char *d = buf + 16 + 12 * t;
    char name[9] = {0};
    memcpy(name, d, 8);
    if (strcmp(name, NAMES[t]) != 0 || le32(d + 8) != ROWS[t]) {
      fprintf(stderr, "Cannot load SFU tables: directory entry %d is not %s x %u\n", t, NAMES[t], ROWS[t]);
      return -1;
    }
    for (uint32_t r = 0; r < ROWS[t]; r++) {
      for (int c = 0; c < 3; c++, data += 4) {
        int32_t v = (int32_t)le32(buf + data);
        if (t == 0) RCP[r][c] = v;
        else if (t == 1) RSQ[r][c] = v;
        else if (t == 2) EX2[r][c] = v;
      }
    }
  }
  loaded = 1;
  return 0;
}

static void need_tables(void) {
  if (!loaded) { fprintf(stderr, "MUFU called but no SFU tables are loaded (set SFU_TABLES)\n"); abort(); }
}

/* The truncated squarer: (sum over set bits i < 17 of v of (v >> (18 - i))) >> 1. */
static int64_t sfu_sq(uint32_t v) {
  uint32_t s = 0;
  for (int i = 0; i < 17; i++) if (v >> i & 1u) s += v >> (18 - i);
  return (int64_t)(s >> 1);
}

/* Significand r in [2^23, 2^24] with biased exponent e: r = 2^24 carries into the exponent;
 * a biased exponent <= 0 after the carry flushes to zero, >= 255 is infinity. */
static uint32_t pack(uint32_t sign, int e, int64_t r) {
  if (r < (1 << 23) || r > (1 << 24)) { fprintf(stderr, "SFU interpolator left [2^23, 2^24]: %lld\n", (long long)r); abort(); }
  if (r == (1 << 24)) { r = 1 << 23; e++; }
  if (e <= 0) return sign;
  if (e >= 255) return sign | 0x7f800000u;
  return sign | (uint32_t)e << 23 | (uint32_t)(r - (1 << 23));
}

#define NAN_OUT 0x7fffffffu

/* rcp.approx.ftz.f32: index mantissa[22:16], x = mantissa[15:0],
 * r = (A*2^13 + B*x + C*sq(2x) + 0x47e7) >> 15, biased exponent 253 - e. */
uint32_t oracle_mufu_rcp_bits(uint32_t u) {
  need_tables();
  uint32_t s = u & 0x80000000u, e = u >> 23 & 0xff, m = u & 0x7fffff;
  if (e == 0) return s | 0x7f800000u;          /* 1/(+-0 or subnormal, flushed) = +-Inf */
  if (e == 255) return m ? NAN_OUT : s;         /* 1/+-Inf = +-0; NaN */
  const int32_t *t = RCP[m >> 16];
  uint32_t x = m & 0xffff;
  int64_t r = ((int64_t)t[0] * 8192 + (int64_t)t[1] * x + (int64_t)t[2] * sfu_sq(2 * x) + 0x47e7) >> 15;
  return pack(s, 253 - (int)e, r);
}

/* rsqrt.approx.ftz.f32: index = parity of the unbiased exponent || mantissa[22:17],
 * x = mantissa[16:0], r = (A*2^14 + B*x + 4*C*sq(x) + 0x7fff) >> 16,
 * biased exponent 126 - floor((e - 127) / 2); an exact power of 4 gives its exact root. */
uint32_t oracle_mufu_rsqrt_bits(uint32_t u) {
  need_tables();
  uint32_t s = u & 0x80000000u, e = u >> 23 & 0xff, m = u & 0x7fffff;
  if (e == 0) return s | 0x7f800000u;          /* +-0 and flushed subnormals: +-Inf */
  if (s) return NAN_OUT;                        /* negative (and -Inf, negative NaN) */
  if (e == 255) return m ? NAN_OUT : 0;         /* 1/sqrt(+Inf) = +0 */
  int k = (int)e - 127, odd = k & 1, half = (k - odd) / 2;
  int eo = 126 - half;
  if (m == 0 && !odd) return (uint32_t)(eo + 1) << 23;
  const int32_t *t = RSQ[(uint32_t)odd << 6 | m >> 17];
  uint32_t x = m & 0x1ffff;
  int64_t r = ((int64_t)t[0] * 16384 + (int64_t)t[1] * x + 4 * (int64_t)t[2] * sfu_sq(x) + 0x7fff) >> 16;
  return pack(0, eo, r);
}

/* ex2.approx.ftz.f32 in two stages. PREEX2: |x| as unsigned 7.23 fixed point, truncated toward
 * zero (the spec's hypothesis H1); subnormals give 0; |x| >= 128 and Inf a saturating code.
 * EX2: x > 0: 2^n * g(f); x < 0 with f != 0: 2^(-n-1) * g(~f) (one's complement of the 23-bit
 * fraction); x < 0 with f = 0: 2^-n. g: index f[22:17], x = f[16:0],
 * r = (A*2^13 + B*x + C*sq(x) + 0x77e2) >> 15, value r * 2^-23. Results < 2^-126 flush to +0. */
uint32_t oracle_mufu_ex2_bits(uint32_t u) {
  need_tables();
  uint32_t s = u >> 31, e = u >> 23 & 0xff, m = u & 0x7fffff;
  if (e == 255 && m) return NAN_OUT;
  uint32_t fixed; /* |x| * 2^23, truncated, below 2^30 */
  int shift = (int)e - 127;
  if (e == 255 || shift >= 7) return s ? 0 : 0x7f800000u; /* |x| >= 128 saturates */
  if (e == 0) fixed = 0;
  else if (shift >= 0) fixed = (m | 0x800000u) << shift;
  else fixed = -shift >= 24 ? 0 : (m | 0x800000u) >> -shift;
  int n = (int)(fixed >> 23);
  uint32_t f = fixed & 0x7fffff;
  int eb = 127 + n;
  if (s) {
    if (f) { eb = 127 - n - 1; f = ~f & 0x7fffff; }
    else eb = 127 - n;
  }
  const int32_t *t = EX2[f >> 17];
  uint32_t x = f & 0x1ffff;
  int64_t r = ((int64_t)t[0] * 8192 + (int64_t)t[1] * x + (int64_t)t[2] * sfu_sq(x) + 0x77e2) >> 15;
  return pack(0, eb, r);
}

static float fv(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t uv(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

float oracle_nvvm_ex2_approx_ftz_f(float a) { return fv(oracle_mufu_ex2_bits(uv(a))); }
float oracle_mufu_rcp_ftz(float a) { return fv(oracle_mufu_rcp_bits(uv(a))); }
float oracle_nvvm_rsqrt_approx_ftz_f(float a) { return fv(oracle_mufu_rsqrt_bits(uv(a))); }

/*
 * Non-FTZ forms. ASSUMPTION (the same one src/kernels/math/mufu.ts documents, recalled from
 * sm_80/sm_90 SASS and not yet checked on a GPU): ptxas expands them around the FTZ MUFU.
 * ex2.approx.f32: if !(x >= -126) and x is not NaN, r = MUFU.EX2(x * 0.5) and the result is
 * r * r; otherwise MUFU.EX2(x). rsqrt.approx.f32: if |x| < 2^-126 (false for NaN),
 * MUFU.RSQ(x * 2^24) * 2^12; otherwise MUFU.RSQ(x). Every multiply is an FMUL rounded to
 * nearest without FTZ, which is one SSE binary32 multiply here (build flags: no contraction).
 */
float oracle_nvvm_ex2_approx_f(float a) {
  if (a >= -126.0f || isnan(a)) return oracle_nvvm_ex2_approx_ftz_f(a);
  volatile float half = a * 0.5f;
  volatile float r = oracle_nvvm_ex2_approx_ftz_f(half);
  return r * r;
}
float oracle_nvvm_rsqrt_approx_f(float a) {
  if (!(fabsf(a) < 0x1p-126f)) return oracle_nvvm_rsqrt_approx_ftz_f(a);
  volatile float scaled = a * 0x1p24f;
  volatile float r = oracle_nvvm_rsqrt_approx_ftz_f(scaled);
  return r * 0x1p12f;
}
