/**
 * Which MUFU functions an FA2 launch depends on, so that a verifier can check each one's
 * validation status against the stack's minimum before trusting the result.
 *
 * @module
 */
import type { Fa2Build } from "./fa2_build.ts";

/** A MUFU function FA2 can use. */
export type Fa2SfuFunction = "ex2" | "lg2" | "rcp";

/**
 * The MUFU functions whose bits reach an FA2 result, sorted: `ex2` always (softmax exponentials;
 * libdevice `expf` in the PyTorch combine also ends in MUFU.EX2); `rcp` when the build's `1/sum`
 * is MUFU.RCP (the IEEE division of the PyTorch build is correctly rounded, so no MUFU bit
 * survives it); `lg2` when an LSE is computed: every split-KV launch (the split kernel's
 * `__logf`, and the fast combine's `logf`) and a standard launch asked for its LSE.
 *
 * @param build the FA2 build
 * @param options split count of the launch and whether the standard kernel's LSE is returned
 * @returns the function names, sorted
 * @throws {RangeError} when `splits` is not a positive integer
 * @example
 * ```ts
 * import { fa2SfuFunctions } from "./fa2_sfu_functions.ts";
 * import { FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED } from "./fa2_build.ts";
 * const dao = fa2SfuFunctions(FA2_DAO_FASTMATH, { splits: 3 });
 * if (dao.join() !== "ex2,lg2,rcp") throw new Error();
 * if (fa2SfuFunctions(FA2_PYTORCH_BUNDLED, { splits: 1 }).join() !== "ex2") throw new Error();
 * ```
 */
export function fa2SfuFunctions(
  build: Fa2Build,
  options: { readonly splits: number; readonly lse?: boolean },
): readonly Fa2SfuFunction[] {
  if (!Number.isInteger(options.splits) || options.splits < 1) {
    throw new RangeError(
      `Cannot list FA2 SFU functions: splits must be a positive integer, got ${options.splits}`,
    );
  }
  const fns: Fa2SfuFunction[] = ["ex2"];
  if (options.splits > 1 || options.lse === true) fns.push("lg2");
  if (build.reciprocal === "mufu-rcp") fns.push("rcp");
  return Object.freeze(fns);
}
