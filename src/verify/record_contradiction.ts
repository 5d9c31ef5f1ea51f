/**
 * What the audit FAILs a record for from its stated world, SM count and GEMM kernel alone, before
 * anything is recomputed: the checks the verifier runs on every record (`_claimedWorld`: library
 * versions against the stack's pins, the stack against the GPU, the NCCL environment, the links,
 * the GPU count against tp x pp x dp, vLLM's expert-parallel sizes), on every attention record's
 * `multiProcessorCount` (above the chip's) and on every record's kernel
 * (`kernelSourceContradiction`: a recipe on a catalog stack, a catalog on a recipe stack). Shared
 * with the prover tools: the simulated prover refuses to write an honest record the audit would
 * FAIL, and `claims append` refuses any such record.
 *
 * @module
 */
import type { ClaimPredicate } from "../claims/mod.ts";
import type { GpuProfile } from "../hardware/mod.ts";
import type { StackProfile } from "../kernels/mod.ts";
import { _claimedWorld } from "./_claimed_parallel.ts";
import { _claimedSmCountFinding } from "./_claimed_sm_count.ts";
import { kernelSourceContradiction } from "./kernel_source_contradiction.ts";

/**
 * Why the audit FAILs a record for what it states of its world, or null.
 *
 * @param p the record's hardware, software and parallelism
 * @param o the record's stack and GPU profile, its GEMM kernel reference (a catalog's id is all
 *   that is read of a catalog), and the SM count its
 *   attention states (absent for a record without attention: a GEMM or an FFN block)
 * @returns the verdict's reason, as the verifier words it (world first, then the SM count, then
 *   the kernel), or null when none contradicts the record
 * @example
 * ```ts
 * import { recordContradiction } from "./record_contradiction.ts";
 * import { parseGpuProfile } from "../hardware/mod.ts";
 * import { parseStackProfile } from "../kernels/mod.ts";
 * const json = (p: string) => JSON.parse(Deno.readTextFileSync(new URL(`../../${p}`, import.meta.url)));
 * const gpu = parseGpuProfile(json("profiles/gpu/a100.json"));
 * const stack = parseStackProfile(json("profiles/stack/hf-qwen3-flash-attn-torch2.8.json"));
 * const p = {
 *   hardware: { profile: "a100", profileSha256: "0".repeat(64), count: 1 },
 *   software: { stack: stack.id, components: { pytorch: "2.8.0" } },
 *   parallelism: { tp: 1, pp: 1, ep: 1, dp: 1 },
 * };
 * const kernel = { catalog: "demo-qwen3-tiny-a100", catalogSha256: "0".repeat(64) };
 * const o = { stack, gpu, kernel };
 * if (recordContradiction(p, { ...o, multiProcessorCount: 108 }) !== null) throw new Error();
 * const sms = recordContradiction(p, { ...o, multiProcessorCount: 200 });
 * if (!sms?.startsWith("record contradicts its GPU: multiProcessorCount 200")) throw new Error();
 * const ranks = { ...p, parallelism: { tp: 2, pp: 1, ep: 1, dp: 1 } };
 * if (!/2 x pp=1 x dp=1 ranks on 1 GPU/.test(recordContradiction(ranks, o) ?? "")) {
 *   throw new Error();
 * }
 * const recipe = recordContradiction(p, { ...o, kernel: { recipe: { family: "kwalk" } } });
 * if (!/dispatches through a catalog, but the record names a recipe/.test(recipe ?? "")) {
 *   throw new Error();
 * }
 * ```
 */
export function recordContradiction(
  p: Pick<ClaimPredicate, "hardware" | "software" | "parallelism">,
  o: {
    readonly stack: StackProfile;
    readonly gpu: GpuProfile;
    readonly kernel: { readonly recipe: unknown } | { readonly catalog: string };
    readonly multiProcessorCount?: number | undefined;
  },
): string | null {
  const world = _claimedWorld(p, o.stack, o.gpu).contradiction;
  if (world !== null) return world;
  if (o.multiProcessorCount !== undefined) {
    const sms = _claimedSmCountFinding(o.gpu, o.multiProcessorCount);
    if (sms?.status === "FAIL") return sms.why;
  }
  return kernelSourceContradiction(o.kernel, o.stack);
}
