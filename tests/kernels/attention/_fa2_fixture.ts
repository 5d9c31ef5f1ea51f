/**
 * Shared fixtures of the FA2 tests: GPU profiles and the table-model SFU from the repository's
 * own assets, the wasm GEMM engine, and synthetic BF16 Q/K/V.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createGemmEngine, type GemmEngine } from "../../../src/engine/mod.ts";
import { type GpuProfile, parseGpuProfile, type Sfu } from "../../../src/hardware/mod.ts";
import {
  type AttentionInputs,
  FA2_DAO_FASTMATH,
  type FlashAttentionOptions,
} from "../../../src/kernels/mod.ts";
import { f32FromBits } from "../../../src/numerics/mod.ts";
import { synthBf16 } from "../../../src/prover/mod.ts";
import { teslaSfu } from "../../hardware/sfu/_tesla_sfu.ts";

const root = new URL("../../../", import.meta.url);

/** Head dimension of the hdim-128 tests (the default of `qkv` and `referenceAttention`). */
export const D = 128;

/** Loads a GPU profile of the repository (e.g. "a100", "h100-sxm"). */
export function profile(id: string): GpuProfile {
  return parseGpuProfile(
    JSON.parse(Deno.readTextFileSync(new URL(`profiles/gpu/${id}.json`, root))),
  );
}

/** The table-model SFU from the bundled ROM asset. */
export const TESLA: Sfu = teslaSfu();

/** The wasm GEMM engine from the committed build. */
export const ENGINE: GemmEngine = createGemmEngine(
  Deno.readFileSync(new URL("tables/wasm/gemm_engine.wasm", root)),
);

/** Synthetic Q [sq, heads, d], K and V [sk, kvHeads, d], d default D (deterministic in `seed`). */
export function qkv(
  seed: string,
  o: { sq: number; sk: number; heads: number; kvHeads: number; d?: number },
): AttentionInputs {
  const d = o.d ?? D;
  return {
    q: synthBf16(seed, { label: "q", count: o.sq * o.heads * d, span: 3 }),
    k: synthBf16(seed, { label: "k", count: o.sk * o.kvHeads * d, span: 3 }),
    v: synthBf16(seed, { label: "v", count: o.sk * o.kvHeads * d, span: 4 }),
  };
}

/** A BF16 pattern's value. */
export const bf = (x: number): number => f32FromBits(x << 16);

/**
 * Asserts a BF16 output within 2 ulps of float64 attention plus an absolute 2^-9 (2^-7 of
 * |want| + 1/4): FA2 rounds P to BF16 before P·V and O once at the end.
 *
 * @param got the output's BF16 patterns
 * @param want float64 attention ({@link referenceAttention})
 * @param tag names the case in a failure
 */
export function assertNear(got: Uint16Array, want: Float64Array, tag: string): void {
  assert.equal(got.length, want.length, tag);
  got.forEach((b, i) => {
    const err = Math.abs(bf(b) - want[i]!);
    assert.ok(
      err <= 2 ** -7 * (Math.abs(want[i]!) + 2 ** -2),
      `${tag} ${i}: ${bf(b)} vs ${want[i]}`,
    );
  });
}

/** How many entries of two equally long arrays differ. */
export const diffCount = (a: ArrayLike<number>, b: ArrayLike<number>): number =>
  Array.from(a).reduce((n, x, i) => n + (x !== b[i] ? 1 : 0), 0);

/**
 * Attention in float64 for one sequence (bottom-right causal), the independent yardstick of the
 * FA2 tests: O [sq, heads, d] and the natural-log LSE [heads, sq], scores scaled by 1/sqrt(d)
 * (d default D).
 */
export function referenceAttention(
  x: AttentionInputs,
  o: { heads: number; kvHeads: number; causal: boolean; d?: number },
): { out: Float64Array; lse: Float64Array } {
  const d = o.d ?? D;
  const sq = x.q.length / (o.heads * d), sk = x.k.length / (o.kvHeads * d);
  const out = new Float64Array(x.q.length);
  const lse = new Float64Array(sq * o.heads);
  for (let h = 0; h < o.heads; h++) {
    const kh = Math.floor(h / (o.heads / o.kvHeads));
    for (let i = 0; i < sq; i++) {
      const s: number[] = [];
      for (let j = 0; j < sk && !(o.causal && j > i + sk - sq); j++) {
        let acc = 0;
        for (let c = 0; c < d; c++) {
          acc += bf(x.q[(i * o.heads + h) * d + c]!) * bf(x.k[(j * o.kvHeads + kh) * d + c]!);
        }
        s.push(acc / Math.sqrt(d));
      }
      const m = Math.max(...s);
      const w = s.map((v) => Math.exp(v - m));
      const z = w.reduce((a, b) => a + b, 0);
      lse[h * sq + i] = m + Math.log(z);
      for (let c = 0; c < d; c++) {
        let acc = 0;
        w.forEach((p, j) => (acc += p * bf(x.v[(j * o.kvHeads + kh) * d + c]!)));
        out[(i * o.heads + h) * d + c] = acc / z;
      }
    }
  }
  return { out, lse };
}

/**
 * Forward options of the FA2 tests: one head, head dimension 128, causal, the Dao build on the A100
 * profile with the table SFU and 108 SMs, then `over`.
 */
export function fa2Options(over: Partial<FlashAttentionOptions> = {}): FlashAttentionOptions {
  return {
    heads: 1,
    kvHeads: 1,
    headDim: D,
    causal: true,
    build: FA2_DAO_FASTMATH,
    profile: profile("a100"),
    mufu: TESLA,
    multiProcessorCount: 108,
    ...over,
  };
}
