/**
 * Helpers of the slow libdevice suites: builds the CPU oracle if absent or older than its MUFU
 * model (tools/libdevice_oracle/build.sh) and streams its outputs. The oracle's results are
 * computed at test time from the CUDA toolkit's libdevice bitcode and, for the MUFU instructions,
 * from the C model in tools/libdevice_oracle/mufu.c reading the SFU ROM asset, which is handed
 * over only after its sha256 matches tables/manifest.json. Nothing here is a stored expectation.
 *
 * @module
 */
import { checkedSfuTablesPath } from "../../../../tools/libdevice_oracle/checked_sfu_tables_path.ts";

const ROOT = new URL("../../../../", import.meta.url).pathname;
/** Path of the oracle binary (git-ignored build output; env `LIBDEVICE_ORACLE` overrides it). */
export const ORACLE = Deno.env.get("LIBDEVICE_ORACLE") ??
  `${ROOT}.build/libdevice_oracle/libdevice_oracle`;
/** Environment of every oracle run: the digest-checked SFU table file. */
const ENV = { SFU_TABLES: await checkedSfuTablesPath() };
let built = false;

/**
 * Builds the oracle when its binary is missing or predates the MUFU model (no `mufu_ex2` entry).
 *
 * @returns the binary's path
 * @throws {Error} when the build script fails
 */
export function ensureOracle(): string {
  if (built) return ORACLE;
  let current = false;
  try {
    const list = new Deno.Command(ORACLE, { args: ["list"] }).outputSync();
    current = list.success && new TextDecoder().decode(list.stdout).includes("mufu_ex2 1");
  } catch {
    current = false;
  }
  if (!current) {
    const dir = ORACLE.slice(0, ORACLE.lastIndexOf("/"));
    const r = new Deno.Command("bash", { args: [`${ROOT}tools/libdevice_oracle/build.sh`, dir] })
      .outputSync();
    if (!r.success) throw new Error(`Cannot build oracle: ${new TextDecoder().decode(r.stderr)}`);
  }
  built = true;
  return ORACLE;
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
  const r = new Deno.Command(ensureOracle(), { args, env: ENV }).outputSync();
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
    env: ENV,
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
  if (!out.success || out.stdout.byteLength % 4 !== 0) {
    throw new Error(`Cannot run oracle ${fn}: ${new TextDecoder().decode(out.stderr)}`);
  }
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

/** Starts the oracle on a range, writing to a temporary file, so that it runs beside the caller. */
function startRange(fn: string, range: { start: number; count: number; stride: number }) {
  const file = Deno.makeTempFileSync({ prefix: "libdevice_oracle_" });
  const args = [fn, "range", String(range.start), String(range.count), String(range.stride)];
  const child = new Deno.Command("sh", {
    args: ["-c", 'exec "$0" "$@" > "$ORACLE_OUT"', ensureOracle(), ...args],
    env: { ...ENV, ORACLE_OUT: file },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  return child.output().then((r) => {
    const bytes = Deno.readFileSync(file);
    Deno.removeSync(file);
    if (!r.success || bytes.byteLength !== 4 * range.count) {
      throw new Error(`Cannot run oracle ${fn}: ${new TextDecoder().decode(r.stderr)}`);
    }
    return new Uint32Array(bytes.buffer, bytes.byteOffset, range.count);
  });
}

/**
 * Compares a TS function with the oracle over `x = start + i * stride`, in chunks of 2^22. The
 * oracle computes chunk k + 1 (a separate process) while chunk k is compared; every input is
 * compared.
 *
 * @param fn libdevice name
 * @param ours the TS implementation
 * @param range inputs, and an optional progress callback
 * @returns the counts and first mismatches
 */
export async function sweep(
  fn: string,
  ours: (bits: number) => number,
  range: { start: number; count: number; stride: number; onChunk?: (done: number) => void },
): Promise<SweepResult> {
  const CHUNK = 1 << 22;
  let mismatches = 0;
  const first: [number, number, number][] = [];
  const chunk = (done: number) => ({
    n: Math.min(CHUNK, range.count - done),
    start: (range.start + done * range.stride) >>> 0,
  });
  const launch = (done: number) => {
    const { n, start } = chunk(done);
    return startRange(fn, { start, count: n, stride: range.stride });
  };
  let next = range.count > 0 ? launch(0) : undefined;
  for (let done = 0; done < range.count; done += CHUNK) {
    const { n, start } = chunk(done);
    const ref = await next!;
    next = done + CHUNK < range.count ? launch(done + CHUNK) : undefined;
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
