/**
 * The tiny MoE layer of the MoE block tests: H = 16 wide (each expert's intermediate as well),
 * M = 4 tokens at 2^-20 (the norm scales them back up; eps below their mean square), and experts
 * whose GEMMs have one or two power-of-two terms per output (exact on any K-walk), so that a test
 * can write the expert path literally.
 *
 * @module
 */
import assert from "node:assert/strict";
import { findDatapath } from "../../../src/hardware/mod.ts";
import { REDUCE_STACK_CUDA_RECENT } from "../../../src/kernels/mod.ts";
import type { ExpertWeights, MoeBlockOptions } from "../../../src/model/forward/moe_block.ts";
import { runtime, tensor } from "../blocks/_block_fixture.ts";

/** The hidden width, and each expert's intermediate width. */
export const H = 16;
/** The tokens. */
export const M = 4;

/** The BF16 pattern of 2^p. */
export const pow2 = (p: number): number => (127 + p) << 7;

/** How the experts of {@link expertWeights} differ. */
export interface ExpertShape {
  /** Up picks h[(j + e) % H] * 2^-(e % upPeriod). */
  readonly upPeriod: number;
  /** Down sums a[j] and a[j + 1] (two terms) rather than taking a[j] (the identity). */
  readonly downPair: boolean;
}

/**
 * Expert e: gate picks h[j] * 2^(e % 3), up picks h[(j + e) % H] * 2^-(e % upPeriod), down is
 * the identity or, with `downPair`, a[j] + a[j + 1].
 */
export function expertWeights(e: number, shape: ExpertShape): ExpertWeights {
  const gate = new Uint16Array(H * H), up = new Uint16Array(H * H), down = new Uint16Array(H * H);
  for (let j = 0; j < H; j++) {
    gate[j * H + j] = pow2(e % 3);
    up[j * H + ((j + e) % H)] = pow2(-(e % shape.upPeriod));
    down[j * H + j] = pow2(0);
    if (shape.downPair) down[j * H + ((j + 1) % H)] = pow2(0);
  }
  return { gate, up, down };
}

/** The options every MoE block takes, whichever its kernels. */
export type MoeLayer = Pick<
  MoeBlockOptions,
  "hidden" | "moe" | "runtime" | "datapath" | "reduceStack" | "eps" | "norm" | "router" | "expert"
>;

/**
 * A layer of `experts` experts of `shape`, top-`topK` with renormalised weights, and its input x:
 * tensors `${label}-x` (shifted to 2^-20), `${label}-norm` (in [1, 2)) and `${label}-router`.
 */
export function moeLayer(
  label: string,
  o: { experts: number; topK: number; shape: ExpertShape },
): { x: Uint16Array; layer: MoeLayer } {
  const x = tensor(`${label}-x`, M * H, 3).map((b) => b - (20 << 7));
  const norm = tensor(`${label}-norm`, H, 1).map((b) => (b & 0x7f) | 0x3f80);
  const router = tensor(`${label}-router`, o.experts * H, 2);
  const rt = runtime();
  const datapath = findDatapath(rt.profile, { input: "bf16", output: "fp32" });
  assert.ok(datapath !== undefined);
  const layer: MoeLayer = {
    hidden: H,
    moe: {
      experts: o.experts,
      topK: o.topK,
      intermediate: H,
      normTopkProb: true,
      decoderSparseStep: 1,
      mlpOnlyLayers: [],
    },
    runtime: rt,
    datapath,
    reduceStack: REDUCE_STACK_CUDA_RECENT,
    eps: 1e-20,
    norm,
    router,
    expert: (e) => Promise.resolve(expertWeights(e, o.shape)),
  };
  return { x, layer };
}
