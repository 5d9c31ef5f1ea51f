/*
 * Harness of the libdevice CPU oracle. Writes little-endian uint32 results to stdout.
 *   libdevice_oracle <fn> range <start> <count> [stride]   x = start + i*stride (mod 2^32)
 *   libdevice_oracle <fn> stdin                            reads arity x uint32 per record
 * Float results that are NaN are written as 0x7FFFFFFF (the GPU's canonical NaN); float2int
 * results are the int32 bits. `list` prints the functions with their arity.
 * Functions that execute MUFU instructions (expf, exp2f, rsqrtf, tanhf, powf and the bare MUFU entries
 * mufu_ex2/mufu_rcp/mufu_rsqrt (.ftz) and ex2_approx/rsqrt_approx (non-FTZ forms)) need the SFU
 * ROM tables: env SFU_TABLES = path of tables/sfu/tesla_sfu_v1.bin, digest checked by the caller.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef float (*f1)(float);
typedef float (*f2)(float, float);
typedef float (*f3)(float, float, float);
typedef int32_t (*i1)(float);

#define DECL1(n) float __nv_##n(float);
#define DECL2(n) float __nv_##n(float, float);
#define DECL3(n) float __nv_##n(float, float, float);
DECL1(sinf) DECL1(cosf) DECL1(logf) DECL1(expf) DECL1(exp2f) DECL1(rsqrtf) DECL1(tanhf)
DECL1(saturatef) DECL1(fsqrt_rn) DECL1(fsqrt_rz) DECL1(fsqrt_ru) DECL1(fsqrt_rd)
DECL2(fadd_rn) DECL2(fadd_rz) DECL2(fadd_ru) DECL2(fadd_rd)
DECL2(fmul_rn) DECL2(fmul_rz) DECL2(fmul_ru) DECL2(fmul_rd)
DECL2(fdiv_rn) DECL2(fdiv_rz) DECL2(fdiv_ru) DECL2(fdiv_rd) DECL2(powf)
DECL3(fmaf_rn) DECL3(fmaf_rz) DECL3(fmaf_ru) DECL3(fmaf_rd)
int32_t __nv_float2int_rn(float); int32_t __nv_float2int_rz(float);
int32_t __nv_float2int_ru(float); int32_t __nv_float2int_rd(float);
int oracle_mufu_load(const char *path);
float oracle_nvvm_ex2_approx_ftz_f(float); float oracle_mufu_rcp_ftz(float);
float oracle_nvvm_rsqrt_approx_ftz_f(float); float oracle_nvvm_ex2_approx_f(float);
float oracle_nvvm_rsqrt_approx_f(float);

struct entry { const char *name; int arity; int is_int; void *fn; int mufu; };
#define E(n, a, i) { #n, a, i, (void *)__nv_##n, 0 }
#define M(n) { #n, 1, 0, (void *)__nv_##n, 1 }
#define RAW(n, f) { #n, 1, 0, (void *)f, 1 }
static const struct entry TABLE[] = {
  E(sinf, 1, 0), E(cosf, 1, 0), E(logf, 1, 0), E(saturatef, 1, 0), E(fsqrt_rn, 1, 0), E(fsqrt_rz, 1, 0), E(fsqrt_ru, 1, 0),
  E(fsqrt_rd, 1, 0), E(fadd_rn, 2, 0), E(fadd_rz, 2, 0), E(fadd_ru, 2, 0), E(fadd_rd, 2, 0),
  E(fmul_rn, 2, 0), E(fmul_rz, 2, 0), E(fmul_ru, 2, 0), E(fmul_rd, 2, 0), E(fdiv_rn, 2, 0),
  E(fdiv_rz, 2, 0), E(fdiv_ru, 2, 0), E(fdiv_rd, 2, 0), E(fmaf_rn, 3, 0), E(fmaf_rz, 3, 0),
  E(fmaf_ru, 3, 0), E(fmaf_rd, 3, 0), E(float2int_rn, 1, 1), E(float2int_rz, 1, 1),
  E(float2int_ru, 1, 1), E(float2int_rd, 1, 1),
  M(expf), M(exp2f), M(rsqrtf), M(tanhf), { "powf", 2, 0, (void *)__nv_powf, 1 },
  RAW(mufu_ex2, oracle_nvvm_ex2_approx_ftz_f), RAW(mufu_rcp, oracle_mufu_rcp_ftz),
  RAW(mufu_rsqrt, oracle_nvvm_rsqrt_approx_ftz_f), RAW(ex2_approx, oracle_nvvm_ex2_approx_f),
  RAW(rsqrt_approx, oracle_nvvm_rsqrt_approx_f),
};

static float f_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t u_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static uint32_t apply(const struct entry *e, const uint32_t *x) {
  if (e->is_int) return (uint32_t)((i1)e->fn)(f_of(x[0]));
  float r;
  if (e->arity == 1) r = ((f1)e->fn)(f_of(x[0]));
  else if (e->arity == 2) r = ((f2)e->fn)(f_of(x[0]), f_of(x[1]));
  else r = ((f3)e->fn)(f_of(x[0]), f_of(x[1]), f_of(x[2]));
  uint32_t u = u_of(r);
  return ((u & 0x7fffffffu) > 0x7f800000u) ? 0x7fffffffu : u;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "list") == 0) {
    for (size_t i = 0; i < sizeof TABLE / sizeof *TABLE; i++) printf("%s %d\n", TABLE[i].name, TABLE[i].arity);
    return 0;
  }
  if (argc < 3) { fprintf(stderr, "usage: %s <fn> range <start> <count> [stride] | <fn> stdin | list\n", argv[0]); return 2; }
  const struct entry *e = NULL;
  for (size_t i = 0; i < sizeof TABLE / sizeof *TABLE; i++) if (strcmp(TABLE[i].name, argv[1]) == 0) e = &TABLE[i];
  if (!e) { fprintf(stderr, "unknown function %s\n", argv[1]); return 2; }
  if (e->mufu) {
    const char *tables = getenv("SFU_TABLES");
    if (!tables) { fprintf(stderr, "%s executes MUFU instructions: set SFU_TABLES\n", e->name); return 2; }
    if (oracle_mufu_load(tables) != 0) return 2;
  }
  static uint32_t out[1 << 16];
  size_t n = 0;
  if (strcmp(argv[2], "range") == 0 && argc >= 5 && e->arity == 1) {
    uint32_t x = (uint32_t)strtoull(argv[3], NULL, 0);
    uint64_t count = strtoull(argv[4], NULL, 0);
    uint32_t stride = argc >= 6 ? (uint32_t)strtoull(argv[5], NULL, 0) : 1;
    for (uint64_t i = 0; i < count; i++, x += stride) {
      out[n++] = apply(e, &x);
      if (n == sizeof out / sizeof *out) { fwrite(out, 4, n, stdout); n = 0; }
    }
  } else if (strcmp(argv[2], "stdin") == 0) {
    uint32_t x[3];
    while (fread(x, 4, (size_t)e->arity, stdin) == (size_t)e->arity) {
      out[n++] = apply(e, x);
      if (n == sizeof out / sizeof *out) { fwrite(out, 4, n, stdout); n = 0; }
    }
  } else { fprintf(stderr, "bad mode\n"); return 2; }
  fwrite(out, 4, n, stdout);
  return fflush(stdout) == 0 ? 0 : 1;
}
