/**
 * The native FP32 sgemm the benchmarks compare against: NumPy's `float32` matmul (its BLAS,
 * OpenBLAS in the usual wheels) in a `python3` subprocess, with the BLAS thread count pinned
 * through the environment. Only the benchmarks use it; the verifier never runs native code.
 *
 * Two forms: `nativeSgemm` times a batch of runs; `openNativeSgemm` keeps the process
 * and its operands alive and times one run per request, so that a benchmark can alternate native
 * and engine runs and compare each engine run with the native run beside it (on a shared host
 * whose speed drifts over seconds, a ratio of two medians taken minutes apart drifts with it).
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

/**
 * BLAS threads sleep as soon as a call returns instead of spinning for work: OpenBLAS's idle
 * threads otherwise poll for about 2^28 cycles (a tenth of a second here) after every call, so in
 * a paired benchmark they took one of two cores from the engine run that followed each native
 * run (128x2560x9728, 2 threads: 8.54 G products/s and a 1.84x speed-up against 9.19 and 1.97x
 * with them asleep, native sgemm's own rate unchanged at 92 G MAC/s). OMP_WAIT_POLICY does the
 * same for an OpenMP BLAS.
 */
export const BLAS_THREAD_ENV: Readonly<Record<string, string>> = {
  OPENBLAS_THREAD_TIMEOUT: "4",
  OMP_WAIT_POLICY: "PASSIVE",
};

const _SESSION = `
import sys, time, numpy as np
m, n, k = map(int, sys.argv[1:4])
rng = np.random.default_rng(0)
a = rng.standard_normal((m, k), dtype=np.float32)
b = rng.standard_normal((k, n), dtype=np.float32)
a @ b
blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
print(blas.get("name", "?"), blas.get("version", "?"), flush=True)
for line in sys.stdin:
    t = time.perf_counter(); a @ b; t = time.perf_counter() - t
    print(m * n * k / t, flush=True)
`;

/** A native sgemm process holding one shape's operands: one timed run per `run()` call. */
export interface NativeSgemmSession {
  /** The BLAS NumPy reports (e.g. `scipy-openblas 0.3.31`). */
  readonly blas: string;
  /** Times one C = A B; resolves to multiply-accumulates per second. */
  run(): Promise<number>;
  /** Ends the process. */
  close(): Promise<void>;
}

/**
 * Starts a native sgemm process for one shape (A [m][k], B [k][n], float32, random; one untimed
 * warm-up run before it answers).
 *
 * @param shape m, n, k
 * @param threads the BLAS thread count
 * @returns the session, or a one-line reason when python3 or NumPy is not available
 * @example
 * ```ts ignore
 * const s = await openNativeSgemm([128, 2560, 9728], 1);
 * if (typeof s !== "string") { console.log(await s.run()); await s.close(); }
 * ```
 */
export async function openNativeSgemm(
  shape: readonly [number, number, number],
  threads: number,
): Promise<NativeSgemmSession | string> {
  const t = String(threads);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("python3", {
      args: ["-c", _SESSION, ...shape.map(String)],
      env: { ...BLAS_THREAD_ENV, OPENBLAS_NUM_THREADS: t, OMP_NUM_THREADS: t, MKL_NUM_THREADS: t },
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
  } catch (e) {
    return `python3 not runnable (${e instanceof Error ? e.message : e})`;
  }
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(_splitLines())
    .getReader();
  const writer = child.stdin.getWriter();
  const next = async () => {
    const r = await lines.read();
    return r.done ? undefined : r.value;
  };
  const close = async () => {
    await writer.close().catch(() => {});
    await lines.cancel().catch(() => {});
    await child.status;
  };
  const blas = await next();
  if (blas === undefined) {
    await close();
    return "python3 with NumPy not available";
  }
  return {
    blas,
    run: async () => {
      await writer.write(new TextEncoder().encode("run\n"));
      const rate = Number(await next());
      if (!(rate > 0)) throw new Error("Cannot time native sgemm: the process gave no rate");
      return rate;
    },
    close,
  };
}

/** Splits a text stream into lines. */
function _splitLines(): TransformStream<string, string> {
  let rest = "";
  return new TransformStream({
    transform(chunk, out) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop() ?? "";
      for (const p of parts) out.enqueue(p);
    },
    flush(out) {
      if (rest !== "") out.enqueue(rest);
    },
  });
}

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
  const session = await openNativeSgemm(shape, options.threads);
  if (typeof session === "string") return session;
  try {
    const rates: number[] = [];
    for (let r = 0; r < options.runs; r++) rates.push(await session.run());
    rates.sort((x, y) => x - y);
    return {
      median: rates[Math.floor(rates.length / 2)] as number,
      min: rates[0] as number,
      max: rates[rates.length - 1] as number,
      blas: session.blas,
    };
  } finally {
    await session.close();
  }
}
