/**
 * Shared fixtures of the block tests: profiles, stacks and runtimes built from the repository's
 * own JSON, small layer shapes and synthetic BF16 tensors.
 *
 * @module
 */
import { createSfu, parseGpuProfile, type Sfu } from "../../../src/hardware/mod.ts";
import {
  type GemmRecipe,
  parseStackProfile,
  referenceKWalker,
  type StackProfile,
} from "../../../src/kernels/mod.ts";
import { type BlockRuntime, fixedRecipeDispatch } from "../../../src/model/mod.ts";
import { synthBf16 } from "../../../src/prover/mod.ts";

const ROOT = new URL("../../../", import.meta.url);

/** Loads a GPU profile of the repository. */
export function profile(id: string) {
  return parseGpuProfile(
    JSON.parse(Deno.readTextFileSync(new URL(`profiles/gpu/${id}.json`, ROOT))),
  );
}

/** The table-model SFU from the bundled ROM asset. */
export { teslaSfu } from "../../hardware/sfu/_tesla_sfu.ts";

/** A stack profile with an operators section. */
export function stack(
  o: {
    attention?: string;
    sfu?: { mode: "tesla-table" | "ieee"; minimumStatus: string };
    torch?: string;
  } = {},
): StackProfile {
  return parseStackProfile({
    schema: "bitaudit.stack-profile/v1",
    id: "test-hf",
    name: "test",
    components: {},
    gemm: { kernelSource: "recipe" },
    sfu: o.sfu ?? { mode: "ieee", minimumStatus: "ieee-exact" },
    operators: { torch: o.torch ?? "2.8.0", attention: o.attention ?? "fa2-pytorch-bundled" },
    sources: [],
  });
}

/** A runtime with the reference K-walker. */
export function runtime(
  o: { gpu?: string; stack?: StackProfile; sfu?: Sfu; recipe?: GemmRecipe } = {},
): BlockRuntime {
  return {
    profile: profile(o.gpu ?? "a100"),
    stack: o.stack ?? stack(),
    gemm: fixedRecipeDispatch(o.recipe ?? { family: "single_walk" }),
    walker: referenceKWalker,
    sfu: o.sfu ?? createSfu({ mode: "ieee" }),
  };
}

/** Synthetic BF16 tensor (deterministic). */
export function tensor(label: string, count: number, span = 4): Uint16Array {
  return synthBf16("blocks-test", { label, count, span });
}

/** Norm weights near 1 (as trained RMSNorm weights are). */
export function normWeight(label: string, count: number): Uint16Array {
  const t = synthBf16("blocks-test", { label, count, span: 1 });
  return t.map((b) => (b & 0x007f) | 0x3f80); // mantissa kept: positive, in [1, 2)
}

/** A layer shape of the block tests. */
export interface TestShape {
  readonly hidden: number;
  readonly intermediate: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
}

/** Synthetic attention-block weights for a shape (`prefix` keeps tests' tensors apart). */
export function attentionWeights(prefix: string, s: TestShape) {
  const { hidden: h, heads, kvHeads, headDim: d } = s;
  return {
    norm: normWeight(`${prefix}.norm`, h),
    q: tensor(`${prefix}.q`, heads * d * h, 3),
    k: tensor(`${prefix}.k`, kvHeads * d * h, 3),
    v: tensor(`${prefix}.v`, kvHeads * d * h),
    o: tensor(`${prefix}.o`, h * heads * d),
    qNorm: normWeight(`${prefix}.qn`, d),
    kNorm: normWeight(`${prefix}.kn`, d),
  };
}

/** Synthetic FFN-block weights for a shape. */
export function ffnWeights(prefix: string, s: TestShape) {
  const { hidden: h, intermediate: f } = s;
  return {
    norm: normWeight(`${prefix}.norm`, h),
    gate: tensor(`${prefix}.gate`, f * h),
    up: tensor(`${prefix}.up`, f * h),
    down: tensor(`${prefix}.down`, h * f),
  };
}
