/** Shared test fixtures: the committed module, profiles' supported datapaths, operand makers. */
import assert from "node:assert/strict";
import { createGemmEngine, type GemmEngine } from "../../src/engine/mod.ts";
import {
  type Datapath,
  type GpuProfile,
  type KWalkGemmOperands,
  kWalkReference,
  parseGpuProfile,
} from "../../src/hardware/mod.ts";
import type { ProfileDatapath } from "../../src/hardware/mod.ts";

export const WASM_URL = new URL("../../tables/wasm/gemm_engine.wasm", import.meta.url);

/** Loads the committed kernel. */
export async function loadEngine(): Promise<GemmEngine> {
  return createGemmEngine(await Deno.readFile(WASM_URL));
}

/** Every profile in profiles/gpu. */
export async function loadProfiles(): Promise<GpuProfile[]> {
  const dir = new URL("../../profiles/gpu/", import.meta.url);
  const out: GpuProfile[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.name.endsWith(".json")) {
      out.push(parseGpuProfile(JSON.parse(await Deno.readTextFile(new URL(e.name, dir)))));
    }
  }
  return out.sort((x, y) => x.id.localeCompare(y.id));
}

/** Every bf16/fp16 -> fp32 datapath of every profile, labelled. */
export async function sixteenBitFp32Datapaths(): Promise<[string, ProfileDatapath][]> {
  const out: [string, ProfileDatapath][] = [];
  for (const p of await loadProfiles()) {
    for (const dp of p.tensorCore.datapaths) {
      const inOk = dp.input.name === "bf16" || dp.input.name === "fp16";
      if (inOk && dp.output.name === "fp32") out.push([`${p.id}/${dp.id}`, dp]);
    }
  }
  return out;
}

/** Deterministic 32-bit generator (xorshift32). */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

/** A random 16-bit pattern with the biased exponent drawn from [lo, hi]. */
export function pattern(next: () => number, fmt: "bf16" | "fp16", lo: number, hi: number): number {
  const fb = fmt === "bf16" ? 7 : 10;
  const e = lo + (next() % (hi - lo + 1));
  return ((next() & 1) << 15) | (e << fb) | (next() & ((1 << fb) - 1));
}

/** Asserts that the engine's K-walk equals the reference bit for bit (first diff in the message). */
export function assertSameAsReference(
  engine: GemmEngine,
  dp: Datapath,
  ops: KWalkGemmOperands,
  label: string,
): void {
  const want = kWalkReference(dp, ops);
  const got = engine.kWalk(dp, ops);
  const i = want.findIndex((v, idx) => v !== got[idx]);
  assert.equal(
    i,
    -1,
    `${label}: first diff at ${i}: ${want[i]?.toString(16)} vs ${got[i]?.toString(16)}`,
  );
}
