/**
 * Builds the GEMM engine kernel from `wasm/assembly/` with pinned AssemblyScript and flags.
 *
 * Usage: `deno run -A tools/wasm/build.ts [out.wasm]` (default `tables/wasm/gemm_engine.wasm`).
 * The compiler runs as a subprocess with `--no-lock --no-config`, so it never touches the
 * project's deno.json or deno.lock; assemblyscript@0.28.20 pins binaryen exactly
 * (131.0.0-nightly.20260721). Needs the npm package in Deno's cache or network access once.
 *
 * @module
 */

/** Compiler package, pinned. */
export const ASC = "npm:assemblyscript@0.28.20/asc";

/** Every compiler flag, pinned (no asconfig.json is read). */
export const ASC_FLAGS: readonly string[] = [
  "--optimizeLevel",
  "3",
  "--shrinkLevel",
  "0",
  "--converge",
  "--noAssert",
  "--runtime",
  "stub",
  "--enable",
  "simd,relaxed-simd",
  "--use",
  "abort=",
  "--initialMemory",
  "5", // static data: the FA2 softmax's squarer table (256 KiB)
  "--config",
  "none",
];

/**
 * Compiles the kernel into `out`.
 *
 * @param out output path of the `.wasm`
 * @returns nothing; throws when the compiler fails
 * @throws {Error} naming the compiler's exit code and stderr
 * @example
 * ```ts ignore
 * await buildGemmWasm("/tmp/gemm_engine.wasm");
 * ```
 */
export async function buildGemmWasm(out: string): Promise<void> {
  const entry = new URL("../../wasm/assembly/index.ts", import.meta.url).pathname;
  const root = new URL("../../", import.meta.url).pathname;
  const cmd = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-lock", "--no-config", "-A", ASC, entry, ...ASC_FLAGS, "-o", out],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  });
  const res = await cmd.output();
  if (!res.success) {
    const err = new TextDecoder().decode(res.stderr);
    throw new Error(`Cannot build the GEMM kernel: asc exited with ${res.code}: ${err}`);
  }
}

if (import.meta.main) {
  const out = Deno.args[0] ??
    new URL("../../tables/wasm/gemm_engine.wasm", import.meta.url).pathname;
  await buildGemmWasm(out);
  const bytes = await Deno.readFile(out);
  console.log(`wrote ${out} (${bytes.length} bytes)`);
}
