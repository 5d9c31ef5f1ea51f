/**
 * Helpers of the slow libdevice suites: builds the CPU oracle if absent (tools/libdevice_oracle/
 * build.sh) and streams its outputs. The oracle's results are computed at test time from the CUDA
 * toolkit's libdevice bitcode; nothing here is a stored expectation.
 *
 * @module
 */
const ROOT = new URL("../../../../", import.meta.url).pathname;
/** Path of the oracle binary (git-ignored build output). */
export const ORACLE = `${ROOT}.build/libdevice_oracle/libdevice_oracle`;

/**
 * Builds the oracle when its binary is missing.
 *
 * @returns the binary's path
 * @throws {Error} when the build script fails
 */
export function ensureOracle(): string {
  try {
    Deno.statSync(ORACLE);
    return ORACLE;
  } catch {
    const r = new Deno.Command("bash", { args: [`${ROOT}tools/libdevice_oracle/build.sh`] })
      .outputSync();
    if (!r.success) throw new Error(`Cannot build oracle: ${new TextDecoder().decode(r.stderr)}`);
    return ORACLE;
  }
}

/**
 * Runs the oracle on `x = start + i * stride` for `count` inputs.
 *
 * @param fn libdevice name without `__nv_` (e.g. "sinf")
 * @param range start, count and stride of the inputs
 * @returns the outputs
 */
export function oracleRange(
  fn: string,
  range: { start: number; count: number; stride: number },
): Uint32Array {
  const args = [fn, "range", String(range.start), String(range.count), String(range.stride)];
  const r = new Deno.Command(ensureOracle(), { args }).outputSync();
  if (!r.success || r.stdout.byteLength !== 4 * range.count) {
    throw new Error(`Cannot run oracle ${fn}: ${new TextDecoder().decode(r.stderr)}`);
  }
  return new Uint32Array(r.stdout.buffer, r.stdout.byteOffset, range.count);
}

/**
 * Runs the oracle on records read from stdin (`arity` uint32 each).
 *
 * @param fn libdevice name without `__nv_`
 * @param records the flattened operand records
 * @returns one output per record
 */
export async function oracleRecords(fn: string, records: Uint32Array): Promise<Uint32Array> {
  const child = new Deno.Command(ensureOracle(), {
    args: [fn, "stdin"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const written = writer.write(
    new Uint8Array(records.buffer, records.byteOffset, records.byteLength),
  )
    .then(() => writer.close());
  const out = await child.output();
  await written;
  return new Uint32Array(out.stdout.slice().buffer);
}

/** Result of a sweep. */
export interface SweepResult {
  /** Inputs compared. */
  readonly count: number;
  /** Inputs whose results differ. */
  readonly mismatches: number;
  /** Up to 10 differing inputs as `[x, ours, oracle]`. */
  readonly first: [number, number, number][];
}

/**
 * Compares a TS function with the oracle over `x = start + i * stride`, in chunks of 2^22.
 *
 * @param fn libdevice name
 * @param ours the TS implementation
 * @param range inputs, and an optional progress callback
 * @returns the counts and first mismatches
 */
export function sweep(
  fn: string,
  ours: (bits: number) => number,
  range: { start: number; count: number; stride: number; onChunk?: (done: number) => void },
): SweepResult {
  const CHUNK = 1 << 22;
  let mismatches = 0;
  const first: [number, number, number][] = [];
  for (let done = 0; done < range.count; done += CHUNK) {
    const n = Math.min(CHUNK, range.count - done);
    const start = (range.start + done * range.stride) >>> 0;
    const ref = oracleRange(fn, { start, count: n, stride: range.stride });
    for (let i = 0; i < n; i++) {
      const x = (start + i * range.stride) >>> 0;
      const got = ours(x);
      if (got !== ref[i]) {
        mismatches++;
        if (first.length < 10) first.push([x, got, ref[i] as number]);
      }
    }
    range.onChunk?.(done + n);
  }
  return { count: range.count, mismatches, first };
}
