/**
 * The verifier's check that a stack could have run on a GPU at all, shared with the prover's
 * tools (`model forward`, `claims append`): a record whose stack cannot run on its GPU FAILs at
 * audit ("record contradicts its stack"), so the tools refuse such a run before writing it.
 *
 * @module
 */
import { attentionBackendArchitectureGap, buildArchitectureGap } from "../kernels/mod.ts";
import type { StackProfile } from "../kernels/mod.ts";

/**
 * Why a stack cannot run on a GPU architecture, or null: its attention kernels need instructions
 * the architecture lacks (or belong to another architecture alone), or the code it pins a build
 * of (`nvcc -arch=sm_80`) does not load there.
 *
 * @param stack the stack profile
 * @param gpu the GPU profile (its `architecture`, `sm_80`)
 * @returns one line naming the stack and what cannot run (an audit FAILs a record with it as
 *   `record contradicts its <line>`), or null
 * @example
 * ```ts
 * import { stackHardwareContradiction } from "./stack_hardware_contradiction.ts";
 * import { parseStackProfile } from "../kernels/mod.ts";
 * const json = (p: string) => JSON.parse(Deno.readTextFileSync(new URL(`../../${p}`, import.meta.url)));
 * const cutlass = parseStackProfile(json("profiles/stack/cutlass-3.5-default.json"));
 * const why = stackHardwareContradiction(cutlass, { architecture: "sm_70" });
 * if (!/^stack 'cutlass-3\.5-default': nvcc '-arch=sm_80 -O2'/.test(why ?? "")) throw new Error();
 * if (stackHardwareContradiction(cutlass, { architecture: "sm_90" }) !== null) throw new Error();
 * ```
 */
export function stackHardwareContradiction(
  stack: StackProfile,
  gpu: { readonly architecture: string },
): string | null {
  // A stack whose attention kernels cannot run on the record's GPU never ran there, whatever the
  // record computes (a GEMM record too: the stack is part of its claim).
  const attention = stack.operators?.attention;
  const off = attention === undefined
    ? null
    : attentionBackendArchitectureGap(attention, gpu.architecture);
  if (off !== null) {
    return `stack '${stack.id}': ${off}, and the record's GPU is ${gpu.architecture}`;
  }
  // Kernels built for a later architecture than the GPU's do not load on it.
  const build = buildArchitectureGap(stack.components, gpu.architecture);
  return build === null ? null : `stack '${stack.id}': ${build}`;
}
