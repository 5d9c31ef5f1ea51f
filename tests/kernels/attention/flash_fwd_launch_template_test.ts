/**
 * The FA2 tile tables (`fa2Tiles`, `fa2SplitTiles`, `fa2CombineBlockM`, the split heuristic's
 * `block_n`) against the launch templates, transcribed here as code from the source of truth:
 * Dao-AILab/flash-attention tag v2.8.3 (060c918), `csrc/flash_attn/src/flash_fwd_launch_template.h`
 * (`run_mha_fwd_hdim64`, `_hdim96`, `_hdim128`, `_hdim256` with `Is_dropout = false`;
 * `run_mha_fwd_splitkv_dispatch`; the combine launch in `run_flash_splitkv_fwd`) and
 * `csrc/flash_attn/flash_api.cpp` (`set_params_splitkv`). The same non-dropout branches are at
 * every tag v2.3.6 .. v2.8.3; PyTorch 2.8.0 compiles that file from its
 * `third_party/flash-attention` submodule, and its own `flash_api.cpp` has the same `block_n`.
 * Shared memory per compute capability: CUDA C++ Programming Guide, "Technical Specifications
 * per Compute Capability". Evidence: derived from source only (no GPU ran these launches).
 */
import assert from "node:assert/strict";
import { createSfu } from "../../../src/hardware/mod.ts";
import {
  FA2_DAO_FASTMATH,
  FA2_HEAD_DIMS,
  FA2_TILES,
  fa2CombineBlockM,
  fa2CombineRow,
  fa2NumSplits,
  fa2SplitTiles,
  fa2Tiles,
  flashAttentionForward,
  isFa2HeadDim,
  planFa2,
} from "../../../src/kernels/attention/mod.ts";
import { fa2Options, profile, qkv } from "./_fa2_fixture.ts";

/** A launched kernel's traits: `Flash_fwd_kernel_traits<Headdim, kBlockM, kBlockN, kNWarps, ...>`. */
type Traits = { blockM: number; blockN: number; warps: number };

/** What `cudaGetDeviceProperties` / `cudaDeviceGetAttribute` report, per compute capability. */
interface Device {
  readonly major: number;
  readonly minor: number;
  /** `cudaDevAttrMaxSharedMemoryPerMultiprocessor`, bytes. */
  readonly smemPerSm: number;
  /** `cudaDevAttrMaxSharedMemoryPerBlockOptin`, bytes. */
  readonly smemPerBlockOptin: number;
}

const KIB = 1024;
/** CUDA C++ Programming Guide: per SM / per block (opt-in) shared memory per compute capability. */
const DEVICES: Record<string, Device> = {
  "8.0": { major: 8, minor: 0, smemPerSm: 164 * KIB, smemPerBlockOptin: 163 * KIB },
  "8.6": { major: 8, minor: 6, smemPerSm: 100 * KIB, smemPerBlockOptin: 99 * KIB },
  "8.9": { major: 8, minor: 9, smemPerSm: 100 * KIB, smemPerBlockOptin: 99 * KIB },
  "9.0": { major: 9, minor: 0, smemPerSm: 228 * KIB, smemPerBlockOptin: 227 * KIB },
};

const traits = (blockM: number, blockN: number, warps: number): Traits => ({
  blockM,
  blockN,
  warps,
});

/** `run_mha_fwd_hdim<d><T, Is_causal>` with `Is_dropout = false`, as written in v2.8.3. */
const LAUNCH: Record<number, (dev: Device, causal: boolean) => Traits> = {
  64: () => traits(128, 128, 4),
  96: (dev, causal) => {
    const isSm8x = dev.major === 8 && dev.minor > 0;
    if (isSm8x) return causal ? traits(64, 64, 4) : traits(128, 64, 4);
    return traits(128, 64, 4);
  },
  128: (dev, causal) => {
    const isSm8x = dev.major === 8 && dev.minor > 0;
    if (isSm8x) return causal ? traits(64, 64, 4) : traits(128, 32, 4);
    return traits(128, 64, 4);
  },
  256: (dev) => {
    const headdim = 256;
    if (
      dev.smemPerBlockOptin >= 2 * headdim * (128 + 2 * 64) &&
      dev.smemPerSm < 4 * headdim * (64 + 2 * 64)
    ) {
      return traits(128, 64, 8);
    }
    return traits(64, 64, 4);
  },
};

/** `run_mha_fwd_splitkv_dispatch<T, Headdim, Is_causal>`. */
const splitLaunch = (headdim: number): Traits =>
  traits(64, headdim <= 64 ? 256 : (headdim <= 128 ? 128 : 64), 4);

/** The combine launch of `run_flash_splitkv_fwd`: its kBlockM. */
const combineBlockM = (kHeadDim: number) =>
  kHeadDim % 128 === 0 ? 4 : (kHeadDim % 64 === 0 ? 8 : 16);

/** Every GPU profile of the repository whose compute capability the table covers. */
const PROFILES = [
  "a100",
  "a30",
  "a2",
  "a40",
  "l4",
  "l40",
  "l40s",
  "rtx-1000-ada",
  "h100-sxm",
  "h100-pcie",
  "h100-nvl",
  "h200",
  "gh200",
];

Deno.test("fa2Tiles() equals the launch templates for every (GPU profile, head dim 64/96/128/256, mask)", () => {
  const seen = new Set<string>();
  for (const id of PROFILES) {
    const p = profile(id);
    const dev = DEVICES[p.computeCapability];
    assert.ok(dev !== undefined, `${id}: compute capability ${p.computeCapability}`);
    for (const d of [64, 96, 128, 256]) {
      for (const causal of [true, false]) {
        const want = LAUNCH[d]!(dev, causal);
        const got = fa2Tiles(p.architecture, { headDim: d, causal });
        const tag = `${id} (${p.architecture}) hdim ${d} causal ${causal}`;
        assert.deepEqual({ ...got }, { blockM: want.blockM, blockN: want.blockN }, tag);
        seen.add(`${p.architecture}/${d}/${want.blockM}x${want.blockN}x${want.warps}`);
      }
    }
  }
  // Every architecture of the tables is among the profiles, and the 8-warp launch is reached.
  for (const d of FA2_HEAD_DIMS) {
    for (const arch of Object.keys(FA2_TILES[d])) {
      assert.ok([...seen].some((s) => s.startsWith(`${arch}/${d}/`)), `${arch} hdim ${d}`);
    }
  }
  assert.ok(seen.has("sm_80/256/128x64x8") && seen.has("sm_90/256/64x64x4"));
});

Deno.test("fa2Tiles() gives the literal tiles of the launch templates (hdim 64, 96, 256)", () => {
  // The table written out, so that a wrong transcription above cannot hide a wrong table.
  const rows: [string, number, boolean, number, number][] = [
    ["sm_80", 64, true, 128, 128],
    ["sm_89", 64, false, 128, 128],
    ["sm_90", 96, true, 128, 64],
    ["sm_86", 96, true, 64, 64],
    ["sm_89", 96, false, 128, 64],
    ["sm_80", 256, true, 128, 64],
    ["sm_80", 256, false, 128, 64],
    ["sm_86", 256, false, 64, 64],
    ["sm_90", 256, true, 64, 64],
    ["sm_90", 256, false, 64, 64],
  ];
  for (const [arch, headDim, causal, blockM, blockN] of rows) {
    assert.deepEqual(
      { ...fa2Tiles(arch as "sm_80", { headDim, causal }) },
      { blockM, blockN },
      `${arch} ${headDim} ${causal}`,
    );
  }
});

Deno.test("fa2SplitTiles() and fa2CombineBlockM() equal the split-KV and combine launches", () => {
  for (const d of FA2_HEAD_DIMS) {
    const want = splitLaunch(d);
    assert.deepEqual({ ...fa2SplitTiles(d) }, { blockM: want.blockM, blockN: want.blockN }, `${d}`);
    assert.equal(fa2CombineBlockM(d), combineBlockM(d), `${d}`);
  }
  assert.deepEqual([64, 96, 128, 256].map((d) => fa2SplitTiles(d).blockN), [256, 128, 128, 64]);
  assert.deepEqual([64, 96, 128, 256].map(fa2CombineBlockM), [8, 16, 4, 4]);
});

Deno.test("planFa2() carries the head dim's standard, split and combine constants", () => {
  for (const d of FA2_HEAD_DIMS) {
    for (const gpu of ["a100", "l4", "h100-sxm"]) {
      const x = qkv(`plan${d}`, { sq: 3, sk: 3, heads: 2, kvHeads: 1, d });
      const p = profile(gpu);
      const { plan } = planFa2(x, fa2Options({ headDim: d, heads: 2, profile: p }));
      assert.deepEqual(plan.tiles, fa2Tiles(p.architecture, { headDim: d, causal: true }));
      assert.deepEqual(plan.splitTiles, fa2SplitTiles(d));
      assert.equal(plan.combineBlockM, fa2CombineBlockM(d));
      assert.equal(plan.d, d);
    }
  }
});

Deno.test("fa2NumSplits() counts key blocks of the split kernel's kBlockN (set_params_splitkv block_n)", () => {
  // Same block count, same answer: hdim 64 blocks of 256 keys, hdim 96/128 of 128, hdim 256 of 64.
  const shape = { batch: 1, heads: 32, kvHeads: 8, seqlenQ: 1 };
  for (const sms of [58, 108, 132]) {
    for (const blocks of [1, 2, 3, 5, 8, 13, 31, 32, 33, 64, 100, 200]) {
      // S_k a whole number of blocks, and one key into the last block (ceil counts it).
      for (const partial of [false, true]) {
        const at = (headDim: number, blockN: number) =>
          fa2NumSplits({
            ...shape,
            headDim,
            seqlenK: partial ? (blocks - 1) * blockN + 1 : blocks * blockN,
            multiProcessorCount: sms,
          });
        const ref = at(128, 128);
        const tag = `${blocks} blocks (partial ${partial}) on ${sms} SMs`;
        assert.equal(at(64, 256), ref, tag);
        assert.equal(at(96, 128), ref, tag);
        assert.equal(at(256, 64), ref, tag);
      }
    }
  }
  // A worked case: decode, 32/8 heads, S_k = 4000, H100 (132 SMs): 16, 32 and 63 key blocks.
  const decode = (headDim: number) =>
    fa2NumSplits({ ...shape, headDim, seqlenK: 4000, multiProcessorCount: 132 });
  const nb = (headDim: number, seqlenK: number) =>
    fa2NumSplits({ ...shape, headDim: 128, seqlenK, multiProcessorCount: 132 }) ===
      decode(headDim);
  assert.ok(nb(64, 16 * 128) && nb(96, 32 * 128) && nb(256, 63 * 128));
});

Deno.test("FA2 refuses head dimensions without a derived table (32, 80, 160, 192, 512)", () => {
  for (const d of [32, 80, 160, 192, 512, 0]) {
    assert.equal(isFa2HeadDim(d), false, `${d}`);
    assert.throws(() => fa2Tiles("sm_80", { headDim: d, causal: true }), RangeError, `${d}`);
    assert.throws(() => fa2SplitTiles(d), RangeError, `${d}`);
    assert.throws(() => fa2CombineBlockM(d), RangeError, `${d}`);
  }
  // d = 80 would run the hdim-96 kernel with Is_even_K = false: refused, not approximated.
  const x = qkv("d80", { sq: 2, sk: 2, heads: 1, kvHeads: 1, d: 80 });
  assert.throws(() => flashAttentionForward(x, fa2Options({ headDim: 80 })), /head dimension 80/);
  assert.throws(
    () =>
      fa2CombineRow({ o: [new Uint32Array(2)], lse: [0] }, {
        build: FA2_DAO_FASTMATH,
        mufu: createSfu({ mode: "ieee" }),
        headDim: 80,
      }),
    RangeError,
  );
  // Architectures outside the tables stay refused at every head dimension.
  for (const d of FA2_HEAD_DIMS) {
    assert.throws(() => fa2Tiles("sm_100", { headDim: d, causal: false }), /sm_80, sm_86/);
  }
});
