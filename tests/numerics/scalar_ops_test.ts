/**
 * The format-generic scalar operations (`floatAdd`, `floatMul`, `floatFma`, `floatDiv`,
 * `floatSqrt`) bit for bit against the independent reference of `_ref_scalar_ops.ts` (BigInt
 * dyadics rounded by a grid search): every e5m2 pair and every e4m3 pair in all four modes, and
 * for the wider formats seeded samples of specials, subnormals, ties, overflow and operands close
 * in exponent (cancellation), with and without flushing, and a NaN-policy override.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  floatAdd,
  floatDiv,
  floatFma,
  type FloatFormat,
  floatMul,
  floatSqrt,
  formatByName,
  type RoundingMode,
  type ScalarOptions,
} from "../../src/numerics/mod.ts";
import { Mismatches } from "./_mismatches.ts";
import { prng32 } from "./_prng.ts";
import { hex } from "./_ref_convert.ts";
import { refFormat } from "./_ref_formats.ts";
import {
  refAddOp,
  refDivOp,
  refFmaOp,
  refMulOp,
  type RefOpOptions,
  refSqrtOp,
} from "./_ref_scalar_ops.ts";

const MODES: readonly RoundingMode[] = ["rne", "rz", "ru", "rd"];

/** Random patterns of a format: a third uniform, the rest biased to specials and near pairs. */
function sampler(f: FloatFormat, seed: number): () => [number, number, number] {
  const next = prng32(seed);
  const pad = 2 ** f.containerShift;
  const top = 2 ** (f.storageBits - 1);
  const field = 2 ** f.fracBits;
  const maxBiased = 2 ** f.expBits - 1;
  const pattern = (sign: number, biased: number, frac: number) =>
    sign * top + (biased * field + frac) * pad;
  const special = () => {
    const frac = [0, 1, field - 1, field / 2, next() % field][next() % 5]!;
    const biased = [0, 1, maxBiased, maxBiased - 1, f.bias][next() % 5]!;
    return pattern(next() & 1, biased, frac);
  };
  const uniform = () => Math.floor((next() / 2 ** 32) * 2 ** f.storageBits / pad) * pad;
  const near = (x: number) => {
    const bx = Math.floor((x % top) / pad / field);
    const b = Math.min(maxBiased, Math.max(0, bx + (next() % 7) - 3));
    return pattern(next() & 1, b, next() % field);
  };
  return () => {
    const kind = next() % 3;
    const a = kind === 0 ? uniform() : special();
    const b = kind === 2 ? near(a) : kind === 0 ? uniform() : special();
    return [a, b, next() % 2 === 0 ? near(a) : uniform()];
  };
}

function check(
  f: FloatFormat,
  inputs: Iterable<readonly [number, number, number]>,
  options: ScalarOptions & { ops?: readonly string[] },
): void {
  const rf = refFormat(f.name);
  const o: RefOpOptions = { ...options, nan: options.nan ?? f.canonicalNan };
  const ops = options.ops ?? ["add", "mul", "fma", "div", "sqrt"];
  const m = new Mismatches();
  for (const [a, b, c] of inputs) {
    const pairs: [string, () => number, () => number][] = [
      ["add", () => floatAdd(f, [a, b], options), () => refAddOp(rf, a, b, o)],
      ["mul", () => floatMul(f, [a, b], options), () => refMulOp(rf, a, b, o)],
      ["fma", () => floatFma(f, [a, b, c], options), () => refFmaOp(rf, [a, b, c], o)],
      ["div", () => floatDiv(f, [a, b], options), () => refDivOp(rf, a, b, o)],
      ["sqrt", () => floatSqrt(f, a, options), () => refSqrtOp(rf, a, o)],
    ];
    for (const [name, got, want] of pairs) {
      if (!ops.includes(name)) continue;
      const g = got(), w = want();
      const w2 = f.storageBits;
      m.check(
        g === w,
        () =>
          `${f.name} ${name} ${JSON.stringify(options)} ${hex(a, w2)} ${hex(b, w2)} ${
            hex(c, w2)
          }: ` +
          `got ${hex(g, w2)}, want ${hex(w, w2)}`,
      );
    }
  }
  m.assertNone(`${f.name} scalar ops`);
}

function* allPairs(f: FloatFormat): Generator<[number, number, number]> {
  const n = 2 ** f.storageBits;
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) yield [a, b, (a * 37 + b) % n];
}

Deno.test("float ops equal the reference for every e5m2 and e4m3 pair in all modes", () => {
  for (const name of ["e5m2", "e4m3"]) {
    const f = formatByName(name);
    for (const mode of MODES) check(f, allPairs(f), { mode, ops: ["add", "mul", "div"] });
    check(f, allPairs(f), { mode: "rne", ops: ["fma", "sqrt"] });
  }
});

Deno.test("float ops equal the reference on sampled fp32, tf32, e8m13, bf16 and fp16 operands", () => {
  let seed = 1;
  for (const name of ["fp32", "tf32", "e8m13", "bf16", "fp16"]) {
    const f = formatByName(name);
    for (const mode of MODES) {
      for (const flush of [{}, { ftz: true, daz: true }, { ftz: true }, { daz: true }]) {
        const draw = sampler(f, seed++);
        check(f, Array.from({ length: 400 }, draw), { mode, ...flush });
      }
    }
  }
});

Deno.test("float ops honour the overflow rule and the NaN policy", () => {
  const f = formatByName("fp16");
  const draw = sampler(f, 99);
  const inputs = Array.from({ length: 2000 }, draw);
  for (const overflow of ["saturate", "infinity"] as const) {
    for (const mode of MODES) check(f, inputs, { mode, overflow });
  }
  check(f, inputs, { nan: 0x7e00 });
  const fp32 = formatByName("fp32");
  assert.equal(floatAdd(fp32, [0x7f800000, 0xff800000], { nan: 0x7fc00000 }), 0x7fc00000);
  assert.equal(floatSqrt(fp32, 0xbf800000), 0x7fffffff);
  assert.equal(floatMul(fp32, [0x00000001, 0x3f000000], { mode: "ru", ftz: true }), 0);
  assert.equal(floatFma(fp32, [0x80000000, 0x3f800000, 0x80000000]), 0x80000000); // -0 + -0
});
