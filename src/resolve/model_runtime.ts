/**
 * The one way a model runtime (`BlockRuntime`: profile, stack, GEMM dispatch, K-walker,
 * attention runner, SFU) is assembled, for the verifier, the prover and the CLI alike: the
 * dispatch follows the kernel the record or the command names (a dispatch catalog, or one fixed
 * recipe; none where the verifier refuses the record's kernel, whose record is still checked
 * against the stack and its history but never recomputed), and the SFU is the one the stack's
 * policy names, loaded from the hash-checked tables.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import type { GpuProfile } from "../hardware/mod.ts";
import type { DispatchCatalog, Fa2Forward, GemmRecipe, KWalker } from "../kernels/mod.ts";
import type { StackProfile } from "../kernels/mod.ts";
import {
  type BlockRuntime,
  catalogDispatch,
  fixedRecipeDispatch,
  type GemmDispatch,
} from "../model/mod.ts";
import { loadSfuForStack } from "./load_sfu.ts";

/**
 * The kernel a runtime dispatches through: a catalog, one recipe for every GEMM, or none (every
 * GEMM uncovered, for the reason given: a record's kernel that is not modelled).
 */
export type RuntimeKernel =
  | { readonly catalog: DispatchCatalog }
  | { readonly recipe: GemmRecipe }
  | { readonly uncovered: string };

/**
 * Assembles a model runtime.
 *
 * @param store the asset store (SFU tables)
 * @param o the GPU `profile`, the `stack`, the `kernel`, the `walker` and optionally the
 *   `attention` runner (an FA2 pool's forward)
 * @returns the runtime
 * @throws {AssetError} when the SFU tables are missing or tampered
 * @example
 * ```ts ignore
 * const runtime = await modelRuntime(store, { profile, stack, kernel: { catalog }, walker });
 * ```
 */
export async function modelRuntime(
  store: AssetStore,
  o: {
    readonly profile: GpuProfile;
    readonly stack: StackProfile;
    readonly kernel: RuntimeKernel;
    readonly walker: KWalker;
    readonly attention?: Fa2Forward | undefined;
  },
): Promise<BlockRuntime> {
  return {
    profile: o.profile,
    stack: o.stack,
    gemm: _dispatch(o.kernel),
    walker: o.walker,
    attention: o.attention,
    sfu: await loadSfuForStack(store, o.stack),
  };
}

function _dispatch(kernel: RuntimeKernel): GemmDispatch {
  if ("recipe" in kernel) return fixedRecipeDispatch(kernel.recipe);
  if ("catalog" in kernel) return catalogDispatch(kernel.catalog);
  const reason = kernel.uncovered;
  return (call) => ({ covered: false, reason: `${call.name}: ${reason}` });
}
