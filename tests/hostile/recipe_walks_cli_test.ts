/**
 * Red-team finding F3 at the command line: `bitaudit gemm` with a recipe file that walks the
 * output far more often than its K allows is refused as an input error (exit 2,
 * `GEMM_UNSUPPORTED`) before any walk, never an internal error (exit 70) from the kernels' own
 * backstop.
 */
import { hostileTable } from "./_hostile.ts";
import { encodeSafetensors } from "../../src/model/safetensors/encode_safetensors.ts";

async function gemmArgs(dir: string, recipe: unknown): Promise<string[]> {
  const data = new Uint16Array(64 * 16).fill(0x3f80);
  await Deno.writeFile(
    `${dir}/in.safetensors`,
    encodeSafetensors([
      { name: "a", dtype: "BF16", shape: [64, 16], data },
      { name: "b", dtype: "BF16", shape: [64, 16], data },
    ]),
  );
  await Deno.writeTextFile(`${dir}/recipe.json`, JSON.stringify(recipe));
  return [
    "gemm",
    "--profile",
    "a100",
    "--recipe",
    `${dir}/recipe.json`,
    "--in",
    `${dir}/in.safetensors`,
    "--out",
    `${dir}/out.safetensors`,
    "--threads",
    "1",
  ];
}

hostileTable("recipe walks", [
  {
    name: "gemm refuses sliced_k {splitK 1024, tileK 64, warpK 2} on K = 16 (32,768 walks)",
    args: (dir) => gemmArgs(dir, { family: "sliced_k", splitK: 1024, tileK: 64, warpK: 2 }),
    exit: 2,
    code: "GEMM_UNSUPPORTED",
  },
  {
    name: "gemm refuses a threadblock of 4,096 warps",
    args: (dir) => gemmArgs(dir, { family: "sliced_k", splitK: 1, tileK: 4096, warpK: 1 }),
    exit: 2,
    code: "GEMM_UNSUPPORTED",
  },
  {
    name: "gemm runs a split-K whose second partition is empty on K = 16",
    args: (dir) => gemmArgs(dir, { family: "serial_split_k", splitK: 2, tileK: 64 }),
    exit: 0,
    writes: true,
  },
]);
