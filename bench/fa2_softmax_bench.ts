/**
 * FA2's online softmax: one causal launch (2 query heads on 1 KV head, head dimension 128, 512
 * tokens, A100, table-model SFU, 1 thread) with the wasm engine's tile softmax against the same
 * launch with the TypeScript step (the baseline of each group: `deno bench` prints the ratio), and
 * the wasm tile softmax alone on tiles of 128 rows x 64 columns (8,192 scores a tile, 8 tiles an
 * iteration), per FA2 build. Both launches compute the tile products on the wasm engine.
 *
 * Run: `deno task bench`.
 *
 * @module
 */
import { createGemmEngine } from "../src/engine/mod.ts";
import { createSfu, decodeSfuTables, parseGpuProfile } from "../src/hardware/mod.ts";
import {
  FA2_DAO_FASTMATH,
  FA2_PYTORCH_BUNDLED,
  flashAttentionForward,
} from "../src/kernels/mod.ts";
import { synthBf16 } from "../src/prover/mod.ts";

const root = new URL("../", import.meta.url);
const engine = createGemmEngine(
  await Deno.readFile(new URL("tables/wasm/gemm_engine.wasm", root)),
);
const profile = parseGpuProfile(
  JSON.parse(await Deno.readTextFile(new URL("profiles/gpu/a100.json", root))),
);
const sfu = createSfu({
  mode: "tesla-table",
  tables: decodeSfuTables(await Deno.readFile(new URL("tables/sfu/tesla_sfu_v1.bin", root))),
});
const [M, HEADS, D] = [512, 2, 128];
const q = synthBf16("fa2-bench", { label: "q", count: M * HEADS * D });
const k = synthBf16("fa2-bench", { label: "k", count: M * D });
const v = synthBf16("fa2-bench", { label: "v", count: M * D });

// Tiles of scores spread like a softmax's inputs (about +-10), all columns visible.
const [ROWS, BLOCK_N, TILES] = [128, 64, 8];
/** fl32(128^-0.5 * log2 e), the launch's scale_log2 at head dimension 128. */
const SCALE_LOG2 = 0x3e0293ee;
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const tiles = Array.from({ length: TILES }, (_, t) => {
  const bits = synthBf16("fa2-bench", { label: `scores-${t}`, count: ROWS * BLOCK_N });
  return Uint32Array.from(bits, (b) => {
    f32[0] = ((b % 2001) - 1000) / 100;
    return u32[0]!;
  });
});

for (const build of [FA2_PYTORCH_BUNDLED, FA2_DAO_FASTMATH]) {
  const options = {
    heads: HEADS,
    kvHeads: 1,
    headDim: D,
    causal: true,
    build,
    profile,
    mufu: sfu,
    multiProcessorCount: 108,
    kWalk: engine.kWalkAuto,
  };
  const softmax = engine.fa2TileSoftmax(build, sfu)!;
  const group = `launch ${build.id}`;
  Deno.bench(`${build.id}: launch, ${M} tokens, TypeScript softmax step`, {
    group,
    baseline: true,
  }, () => {
    flashAttentionForward({ q, k, v }, options);
  });
  Deno.bench(`${build.id}: launch, ${M} tokens, wasm tile softmax`, { group }, () => {
    flashAttentionForward({ q, k, v }, { ...options, tileSoftmax: softmax });
  });
  const state = {
    rowMax: new Uint32Array(ROWS),
    sums: new Uint32Array(ROWS * 4),
    o: new Uint32Array(ROWS * D),
    pb: new Uint16Array(ROWS * BLOCK_N),
    limits: new Int32Array(ROWS).fill(BLOCK_N),
  };
  Deno.bench(`${build.id}: wasm tile softmax, ${TILES} tiles of ${ROWS} x ${BLOCK_N}`, () => {
    state.rowMax.fill(0xff800000);
    state.o.fill(0x3f800000);
    for (const [t, scores] of tiles.entries()) {
      softmax({
        rows: ROWS,
        blockN: BLOCK_N,
        d: D,
        scores,
        ...state,
        first: t === 0,
        checkInf: t < 2, // hdim 128 on the A100: 2 masking iterations of a causal launch
        scaleLog2: SCALE_LOG2,
      });
    }
  });
}
