/**
 * The alignment floors of the committed GPU profiles, pinned by blocks whose result they decide.
 *
 * The floor values are the shipped NVIDIA `min_exp_limit` of Khattak & Mikaitis' models (spec
 * tensor_core_khattak_mikaitis.md §9.2; the grid they imply, §10): -132 for fp32 output on
 * Ampere (A100TC, also A30, A2, A40) and Ada (AdaTC, L40STC; L4 and L40 are the same Ada SM),
 * -133 on Hopper (H100TC, also H200, GH200) and Blackwell (B200TC, RTXPRO6000TC).
 *
 * For every bf16 or tf32 -> fp32 datapath, blocks with c = 0 and every product far below the floor:
 * the alignment exponent is then the floor f itself (§5.2, `E = max(E, min_exp_limit)`), each
 * product is truncated to whole units u = 2^(f - F) (§5.3, `A_i = floor(|x_i| 2^(F - E))`), and the
 * sum is rounded toward zero into fp32 subnormals (§9.1 `out_subnormals` = 1, fp32 `frmode` rz).
 * With g = 2^-149 / u units per smallest subnormal:
 * - "up": (g - 2) u + u + u sums to g units, 2^-149, at f; at f + 1 (units of 2u) the two u
 *   products vanish and the sum truncates to +0;
 * - "down": (g - 1) u + u/2 + u/2 truncates to +0 at f; at f - 1 (units of u/2) it is 2^-149.
 * The expected value is derived here from those rules, not read from the code. The fp16 -> fp16
 * datapaths (floors -19 V100, -20 Ampere/Ada, -21 Hopper/Blackwell) are pinned the same way with
 * sums next to a rounding tie of fp16's round-to-nearest-even output.
 */
import assert from "node:assert/strict";
import { blockFma, parseGpuProfile, type ProfileDatapath } from "../../../src/hardware/mod.ts";

/** Spec floors (fp32 output) by profile id; see the module doc. */
const SPEC_FLOOR_FP32: Record<string, number> = {
  a100: -132,
  a2: -132,
  a30: -132,
  a40: -132,
  l4: -132,
  l40: -132,
  l40s: -132,
  "rtx-1000-ada": -132,
  "h100-sxm": -133,
  "h100-pcie": -133,
  "h100-nvl": -133,
  h200: -133,
  gh200: -133,
  b200: -133,
  "rtx-pro-6000-blackwell": -133,
};

const DIR = new URL("../../../profiles/gpu/", import.meta.url);
const datapaths: [string, ProfileDatapath][] = [...Deno.readDirSync(DIR)]
  .filter((e) => e.name.endsWith(".json"))
  .map((e) => parseGpuProfile(JSON.parse(Deno.readTextFileSync(new URL(e.name, DIR)))))
  .flatMap((p) => p.tensorCore.datapaths.map((dp) => [p.id, dp] as [string, ProfileDatapath]))
  .filter(([, dp]) =>
    (dp.input.name === "bf16" || dp.input.name === "tf32") && dp.output.name === "fp32"
  )
  .sort(([x, a], [y, b]) => `${x}/${a.id}`.localeCompare(`${y}/${b.id}`));

/** The fp32 bits of m * 2^e (exact: m has at most 8 bits, the value is a normal fp32). */
function f32Bits(m: number, e: number): number {
  const v = new DataView(new ArrayBuffer(4));
  v.setFloat32(0, m * 2 ** e);
  assert.equal(v.getFloat32(0), m * 2 ** e, `${m} * 2^${e} is an fp32 value`);
  return v.getUint32(0);
}

/** The input pattern (bf16: the high half of the fp32 bits; tf32: fp32 bits) of m * 2^e. */
function input(dp: ProfileDatapath, m: number, e: number): number {
  return dp.input.name === "bf16" ? f32Bits(m, e) >>> 16 : f32Bits(m, e);
}

/** Operands whose products are the given multiples of 2^e: m = x * y with x, y at most 255. */
function products(dp: ProfileDatapath, terms: [number, number][]): { a: number[]; b: number[] } {
  const a: number[] = [];
  const b: number[] = [];
  for (const [m, e] of terms) {
    let x = 1;
    while (m % x !== 0 || m / x > 255) x++;
    assert.ok(x <= 255, `${m} splits into two 8-bit significands`);
    const ea = Math.floor(e / 2);
    a.push(input(dp, x, ea));
    b.push(input(dp, m / x, e - ea));
  }
  return { a, b };
}

/** The spec's result for products m * 2^e (all below the floor), c = 0, floor f, F bits. */
function derive(terms: [number, number][], f: number, F: number): number {
  let units = 0;
  for (const [m, e] of terms) {
    assert.ok(Math.log2(m) + e < f - 2, "every product is far below the floor");
    units += Math.floor(m * 2 ** (e - (f - F)));
  }
  const v = units * 2 ** (f - F);
  assert.ok(v < 2 ** -126, "the sum is an fp32 subnormal");
  return Math.floor(v / 2 ** -149); // round toward zero onto the subnormal grid
}

Deno.test("every bf16/tf32 -> fp32 datapath has a spec floor", () => {
  for (const [id, dp] of datapaths) {
    assert.ok(SPEC_FLOOR_FP32[id] !== undefined, `${id}/${dp.id}`);
  }
});

for (const [id, dp] of datapaths) {
  Deno.test(`blockFma() on ${id}/${dp.id} truncates sub-floor products on the spec floor's grid`, () => {
    const f = SPEC_FLOOR_FP32[id]!;
    const F = dp.fracBits;
    const lu = f - F; // log2 of the unit u
    const g = 2 ** (-149 - lu);
    const up: [number, number][] = [[g - 2, lu], [1, lu], [1, lu]];
    const down: [number, number][] = [[g - 1, lu], [1, lu - 1], [1, lu - 1]];
    assert.deepEqual(
      [derive(up, f, F), derive(up, f + 1, F)],
      [1, 0],
      "the case tells f from f + 1",
    );
    assert.deepEqual([derive(down, f, F), derive(down, f - 1, F)], [0, 1], "and f from f - 1");
    for (const [name, terms] of [["up", up], ["down", down]] as const) {
      const { a, b } = products(dp, terms);
      assert.equal(blockFma(dp, { c: 0, a, b }), derive(terms, f, F), name);
    }
  });
}

/**
 * Spec floors for fp16 output (§9.2: V100TC -19, A100TC and AdaTC -20, H100TC and B200TC -21; the
 * same families as {@link SPEC_FLOOR_FP32}), for the fp16 -> fp16 datapaths.
 */
const SPEC_FLOOR_FP16: Record<string, number> = {
  v100: -19,
  ...Object.fromEntries(
    Object.entries(SPEC_FLOOR_FP32).map(([id, f]) => [id, f === -132 ? -20 : -21]),
  ),
};

const fp16Datapaths: [string, ProfileDatapath][] = [...Deno.readDirSync(DIR)]
  .filter((e) => e.name.endsWith(".json"))
  .map((e) => parseGpuProfile(JSON.parse(Deno.readTextFileSync(new URL(e.name, DIR)))))
  .flatMap((p) => p.tensorCore.datapaths.map((dp) => [p.id, dp] as [string, ProfileDatapath]))
  .filter(([, dp]) => dp.input.name === "fp16" && dp.output.name === "fp16")
  .sort(([x, a], [y, b]) => `${x}/${a.id}`.localeCompare(`${y}/${b.id}`));

/** The fp16 pattern of 2^e (a normal or subnormal fp16 value). */
function f16Pow2(e: number): number {
  assert.ok(e >= -24 && e <= 15, `2^${e} is an fp16 value`);
  return e >= -14 ? (e + 15) << 10 : 1 << (e + 24);
}

/**
 * The spec's fp16 result for products 2^e (all below the floor), c = 0, floor f, F bits: the sum
 * of the products truncated to units 2^(f - F) (§5.3), rounded to nearest even onto the fp16
 * subnormal grid 2^-24 (§9.2 `frmode` rne, `out_subnormals` 1).
 */
function deriveFp16(terms: number[], f: number, F: number): number {
  let units = 0;
  for (const e of terms) {
    assert.ok(e < f - 2, "every product is far below the floor");
    units += Math.floor(2 ** (e - (f - F)));
  }
  const q = units * 2 ** (f - F) / 2 ** -24; // in fp16 subnormal units
  assert.ok(q < 2 ** 10, "the sum is an fp16 subnormal");
  const r = Math.floor(q), rest = q - r;
  return rest > 0.5 || (rest === 0.5 && r % 2 === 1) ? r + 1 : r;
}

Deno.test("every fp16 -> fp16 datapath has a spec floor", () => {
  assert.ok(fp16Datapaths.length > 0);
  for (const [id, dp] of fp16Datapaths) {
    assert.ok(SPEC_FLOOR_FP16[id] !== undefined, `${id}/${dp.id}`);
  }
});

for (const [id, dp] of fp16Datapaths) {
  Deno.test(`blockFma() on ${id}/${dp.id} truncates sub-floor products on the spec floor's grid (fp16 output)`, () => {
    const f = SPEC_FLOOR_FP16[id]!;
    const F = dp.fracBits;
    const lu = f - F; // log2 of the unit u
    // Half an fp16 subnormal unit (2^-25) plus one unit u: just above the tie at f, the tie (to
    // even: +0) at f + 1, where u truncates away; the tie plus half a unit: the tie at f, just
    // above it at f - 1.
    const up = [-25, lu];
    const down = [-25, lu - 1];
    assert.deepEqual([deriveFp16(up, f, F), deriveFp16(up, f + 1, F)], [1, 0], "f from f + 1");
    assert.deepEqual([deriveFp16(down, f, F), deriveFp16(down, f - 1, F)], [0, 1], "f from f - 1");
    for (const [name, terms] of [["up", up], ["down", down]] as const) {
      const a = terms.map((e) => f16Pow2(Math.floor(e / 2)));
      const b = terms.map((e) => f16Pow2(e - Math.floor(e / 2)));
      assert.equal(blockFma(dp, { c: 0, a, b }), deriveFp16(terms, f, F), name);
    }
  });
}
