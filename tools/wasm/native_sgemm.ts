/**
 * The native FP32 sgemm the GEMM benchmark compares against: NumPy's `float32` matmul (its BLAS,
 * OpenBLAS in the usual wheels) in a `python3` subprocess, with the BLAS thread count pinned
 * through the environment. Only the benchmark uses it; the verifier never runs native code.
 *
 * @module
 */

/** Median and spread of native sgemm runs, in multiply-accumulates per second. */
export interface NativeSgemmRate {
  /** Median over the runs. */
  readonly median: number;
  /** Slowest run. */
  readonly min: number;
  /** Fastest run. */
  readonly max: number;
  /** The BLAS NumPy reports (e.g. `scipy-openblas 0.3.31`). */
  readonly blas: string;
}

const _SCRIPT = `
import sys, time, numpy as np
m, n, k, runs = map(int, sys.argv[1:5])
rng = np.random.default_rng(0)
a = rng.standard_normal((m, k), dtype=np.float32)
b = rng.standard_normal((k, n), dtype=np.float32)
a @ b
ts = []
for _ in range(runs):
    t = time.perf_counter(); a @ b; ts.append(time.perf_counter() - t)
blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
print(" ".join(str(m * n * k / t) for t in ts), blas.get("name", "?"), blas.get("version", "?"))
`;

/**
 * Times C = A B for A [m][k], B [k][n] (float32, random) `runs` times after one warm-up.
 *
 * @param shape m, n, k
 * @param options `runs` (>= 1) and `threads` (the BLAS thread count)
 * @returns the rates, or a one-line reason when python3 or NumPy is not available
 * @example
 * ```ts ignore
 * const r = await nativeSgemm([128, 2560, 9728], { runs: 3, threads: 1 });
 * ```
 */
export async function nativeSgemm(
  shape: readonly [number, number, number],
  options: { runs: number; threads: number },
): Promise<NativeSgemmRate | string> {
  const t = String(options.threads);
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("python3", {
      args: ["-c", _SCRIPT, ...shape.map(String), String(options.runs)],
      env: { OPENBLAS_NUM_THREADS: t, OMP_NUM_THREADS: t, MKL_NUM_THREADS: t },
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (e) {
    return `python3 not runnable (${e instanceof Error ? e.message : e})`;
  }
  if (!out.success) return "python3 with NumPy not available";
  const words = new TextDecoder().decode(out.stdout).trim().split(" ");
  const rates = words.slice(0, options.runs).map(Number).sort((x, y) => x - y);
  if (rates.length !== options.runs || rates.some((r) => !(r > 0))) return "unparsable output";
  return {
    median: rates[Math.floor(rates.length / 2)] as number,
    min: rates[0] as number,
    max: rates[rates.length - 1] as number,
    blas: words.slice(options.runs).join(" "),
  };
}
