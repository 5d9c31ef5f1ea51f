/**
 * Runs the SLEEF powf oracle (tools/sleef_oracle/build.sh) on operand pairs through its stdin.
 *
 * @module
 */

/** The SLEEF entry points the oracle can call (see oracle.c). */
export const VARIANTS = ["avx2", "avx512f", "dispatch8", "dispatch16"] as const;

/** Default path of the built oracle (git-ignored; env `SLEEF_ORACLE` overrides it). */
export const SLEEF_ORACLE = Deno.env.get("SLEEF_ORACLE") ??
  new URL("../../.build/sleef_oracle/sleef_oracle", import.meta.url).pathname;

/**
 * Results of one SLEEF entry point for the pairs.
 *
 * @param variant the entry point
 * @param pairs flattened (x, y) FP32 patterns
 * @param oracle path of the oracle binary
 * @returns one FP32 pattern per pair
 * @throws {Error} when the oracle fails or answers short
 */
export async function sleefPowf(
  variant: typeof VARIANTS[number],
  pairs: Uint32Array,
  oracle: string = SLEEF_ORACLE,
): Promise<Uint32Array> {
  const child = new Deno.Command(oracle, {
    args: [variant],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const written = writer.write(new Uint8Array(pairs.buffer, pairs.byteOffset, pairs.byteLength))
    .then(() => writer.close());
  const out = await child.output();
  await written;
  if (!out.success || out.stdout.byteLength !== pairs.byteLength / 2) {
    throw new Error(
      `Cannot run the SLEEF oracle (${variant}): ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return new Uint32Array(out.stdout.slice().buffer);
}

/**
 * The oracle's `info` line: SLEEF version and the CPU's AVX2+FMA / AVX-512F support.
 *
 * @param oracle path of the oracle binary
 * @returns the line
 */
export function oracleInfo(oracle: string = SLEEF_ORACLE): string {
  const r = new Deno.Command(oracle, { args: ["info"] }).outputSync();
  return new TextDecoder().decode(r.stdout).trim();
}
