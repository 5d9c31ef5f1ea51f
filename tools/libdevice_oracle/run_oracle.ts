/**
 * Runs the libdevice CPU oracle (built by build.sh) on records read from stdin.
 *
 * @module
 */

/**
 * Runs one function of the oracle.
 *
 * @param oracle the oracle binary
 * @param fn the function (`libdevice_oracle list` names them)
 * @param records its operands, arity uint32 per record
 * @param env `SFU_TABLES` for the functions that execute MUFU instructions
 * @returns one uint32 result per record
 * @throws {Error} when the oracle fails
 */
export async function runOracle(
  oracle: string,
  fn: string,
  records: Uint32Array,
  env: Record<string, string>,
): Promise<Uint32Array> {
  const child = new Deno.Command(oracle, {
    args: [fn, "stdin"],
    env,
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  const done = w.write(new Uint8Array(records.buffer)).then(() => w.close());
  const out = await child.output();
  await done;
  if (!out.success) throw new Error(`Cannot run oracle ${fn}: exit code ${out.code}`);
  return new Uint32Array(out.stdout.slice().buffer);
}
