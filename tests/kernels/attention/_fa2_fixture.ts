/**
 * Shared fixtures of the FA2 tests: GPU profiles and the table-model SFU from the repository's
 * own assets, the wasm GEMM engine, and synthetic BF16 Q/K/V.
 *
 * @module
 */
import {
  createGemmEngine,
  createSfu,
  decodeSfuTables,
  type GemmEngine,
  type GpuProfile,
  parseGpuProfile,
  type Sfu,
} from "../../../src/hardware/mod.ts";
import type { AttentionInputs } from "../../../src/kernels/mod.ts";
import { synthBf16 } from "../../../src/prover/mod.ts";

const root = new URL("../../../", import.meta.url);

/** Head dimension of every modelled launch. */
export const D = 128;

/** Loads a GPU profile of the repository (e.g. "a100", "h100-sxm"). */
export function profile(id: string): GpuProfile {
  return parseGpuProfile(
    JSON.parse(Deno.readTextFileSync(new URL(`profiles/gpu/${id}.json`, root))),
  );
}

/** The table-model SFU from the bundled ROM asset. */
export const TESLA: Sfu = createSfu({
  mode: "tesla-table",
  tables: decodeSfuTables(Deno.readFileSync(new URL("tables/sfu/tesla_sfu_v1.bin", root))),
});

/** The wasm GEMM engine from the committed build. */
export const ENGINE: GemmEngine = createGemmEngine(
  Deno.readFileSync(new URL("tables/wasm/gemm_engine.wasm", root)),
);

/** Synthetic Q [sq, heads, D], K and V [sk, kvHeads, D] (deterministic in `seed`). */
export function qkv(
  seed: string,
  o: { sq: number; sk: number; heads: number; kvHeads: number },
): AttentionInputs {
  return {
    q: synthBf16(seed, { label: "q", count: o.sq * o.heads * D, span: 3 }),
    k: synthBf16(seed, { label: "k", count: o.sk * o.kvHeads * D, span: 3 }),
    v: synthBf16(seed, { label: "v", count: o.sk * o.kvHeads * D, span: 4 }),
  };
}
