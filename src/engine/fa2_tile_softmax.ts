/**
 * The FA2 tile softmax on the wasm kernel (`wasm/assembly/fa2_softmax.ts`) for a build and a MUFU
 * model, when the kernel models them: the table-model SFU or the `ieee` SFU (`createSfu`, read
 * back through its description) and the build choices the kernel knows. Anything else gets
 * `undefined`, and FA2 keeps its TypeScript step. Tests compare both on adversarial tiles.
 *
 * @module
 */
import { sfuDescription } from "../hardware/mod.ts";
import type { Fa2Build, Fa2TileSoftmax } from "../kernels/mod.ts";
import type { WasmKernel } from "./wasm_kernel.ts";

/**
 * The kernel's build flags, or undefined for a choice it does not model.
 *
 * @param build the FA2 build
 * @returns 1 FTZ | 2 FFMA exp2 argument | 4 bare MUFU.EX2 | 8 FFMA row-sum rescale
 * @example
 * ```ts
 * import { fa2SoftmaxFlags } from "./fa2_tile_softmax.ts";
 * import { FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED } from "../kernels/mod.ts";
 * if (fa2SoftmaxFlags(FA2_DAO_FASTMATH) !== 15 || fa2SoftmaxFlags(FA2_PYTORCH_BUNDLED) !== 8) {
 *   throw new Error();
 * }
 * ```
 */
export function fa2SoftmaxFlags(build: Fa2Build): number | undefined {
  const pick = <T extends string>(v: T, on: T, off: T, bit: number) =>
    v === on ? bit : v === off ? 0 : undefined;
  const parts = [
    build.ftz === true ? 1 : build.ftz === false ? 0 : undefined,
    pick(build.exp2Argument, "ffma", "fmul-fadd", 2),
    pick(build.exp2, "mufu-ftz", "ex2-approx", 4),
    pick(build.rowSumRescale, "ffma", "fmul-fadd", 8),
  ];
  if (parts.some((p) => p === undefined)) return undefined;
  return parts.reduce((a: number, b) => a | (b as number), 0);
}

/**
 * Binds the kernel's tile softmax to a build and a MUFU model.
 *
 * @param kernel a kernel instance (used only on the thread that calls the result)
 * @param build the launch's FA2 build
 * @param mufu the launch's MUFU model (an unmodified `Sfu` from `createSfu`: `tesla-table`, or
 *   `ieee`, whose EX2 the kernel reproduces with its FTZ flag)
 * @returns the tile softmax, or undefined when the kernel does not model this build or SFU
 * @example
 * ```ts ignore
 * const softmax = wasmFa2TileSoftmax(kernel, FA2_DAO_FASTMATH, sfu);
 * ```
 */
export function wasmFa2TileSoftmax(
  kernel: WasmKernel,
  build: Fa2Build,
  mufu: object,
): Fa2TileSoftmax | undefined {
  const sfu = sfuDescription(mufu);
  const flags = fa2SoftmaxFlags(build);
  if (sfu === undefined || flags === undefined) return undefined;
  if (sfu.mode === "ieee") {
    const ieeeFlags = flags | 16 | (sfu.ftz ? 32 : 0);
    return (tile) => kernel.fa2SoftmaxTile({ ...tile, flags: ieeeFlags });
  }
  if (sfu.mode !== "tesla-table") return undefined;
  const ex2Table = sfu.tables.ex2;
  return (tile) => kernel.fa2SoftmaxTile({ ...tile, flags, ex2Table });
}
