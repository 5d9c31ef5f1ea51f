/*
 * SLEEF powf oracle: runs the SLEEF library's own u10 single-precision pow on (x, y) FP32
 * pattern pairs read from stdin (two little-endian uint32 per pair) and writes one uint32 result
 * per pair to stdout. Build with tools/sleef_oracle/build.sh against a built SLEEF.
 *
 *   sleef_oracle avx2|avx512f|dispatch8|dispatch16   (pairs on stdin, results on stdout)
 *   sleef_oracle info                                (library version and CPU features)
 *
 * avx2 = Sleef_powf8_u10avx2, avx512f = Sleef_powf16_u10avx512f, dispatch8/16 = the dispatchers
 * Sleef_powf8_u10 / Sleef_powf16_u10 (PyTorch's Vectorized<float>::pow calls these). Inputs are
 * packed 8 or 16 to a vector; a short last vector is padded with (1, 1).
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "sleef.h"

#define N 16
typedef void (*kernel_t)(const float *x, const float *y, float *out);

static void k_avx2(const float *x, const float *y, float *o) {
  for (int i = 0; i < N; i += 8)
    _mm256_storeu_ps(o + i, Sleef_powf8_u10avx2(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
}
static void k_disp8(const float *x, const float *y, float *o) {
  for (int i = 0; i < N; i += 8)
    _mm256_storeu_ps(o + i, Sleef_powf8_u10(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
}
static void k_avx512(const float *x, const float *y, float *o) {
  _mm512_storeu_ps(o, Sleef_powf16_u10avx512f(_mm512_loadu_ps(x), _mm512_loadu_ps(y)));
}
static void k_disp16(const float *x, const float *y, float *o) {
  _mm512_storeu_ps(o, Sleef_powf16_u10(_mm512_loadu_ps(x), _mm512_loadu_ps(y)));
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: sleef_oracle avx2|avx512f|dispatch8|dispatch16|info\n");
    return 2;
  }
  __builtin_cpu_init();
  int has512 = __builtin_cpu_supports("avx512f");
  int has2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (strcmp(argv[1], "info") == 0) {
    printf("sleef %d.%d.%d avx2+fma %d avx512f %d\n", SLEEF_VERSION_MAJOR, SLEEF_VERSION_MINOR,
           SLEEF_VERSION_PATCHLEVEL, !!has2, !!has512);
    return 0;
  }
  kernel_t k = NULL;
  if (strcmp(argv[1], "avx2") == 0 && has2) k = k_avx2;
  if (strcmp(argv[1], "dispatch8") == 0 && has2) k = k_disp8;
  if (strcmp(argv[1], "avx512f") == 0 && has512) k = k_avx512;
  if (strcmp(argv[1], "dispatch16") == 0 && has512) k = k_disp16;
  if (k == NULL) {
    fprintf(stderr, "variant '%s' unknown or not supported by this CPU\n", argv[1]);
    return 2;
  }
  uint32_t in[2 * N], out[N];
  float x[N], y[N], r[N];
  size_t got;
  while ((got = fread(in, 8, N, stdin)) > 0) {
    for (size_t i = 0; i < N; i++) {
      uint32_t a = i < got ? in[2 * i] : 0x3f800000u, b = i < got ? in[2 * i + 1] : 0x3f800000u;
      memcpy(&x[i], &a, 4);
      memcpy(&y[i], &b, 4);
    }
    k(x, y, r);
    memcpy(out, r, 4 * N);
    if (fwrite(out, 4, got, stdout) != got) return 1;
  }
  return ferror(stdin) ? 1 : 0;
}
