/**
 * `convert()` from fp32 on a seeded random sample of patterns, against the exact reference, in
 * every rounding direction (and, for one input in eight, every overflow rule with FTZ and DAZ).
 * The larger sweep lives in `tests/slow/numerics/`.
 *
 * @module
 */
import { FORMATS, FP32 } from "../../src/numerics/mod.ts";
import { checkConversion } from "./_check_conversion.ts";
import { fp32Sampler } from "./_fp32_sampler.ts";
import { Mismatches } from "./_mismatches.ts";
import { refFormat } from "./_ref_formats.ts";

/** Inputs per target in CI: about 0.3 s each on one core. */
const SAMPLES = 100_000;

for (const name of ["bf16", "fp16", "e4m3", "e5m2", "tf32", "e8m13"] as const) {
  const to = FORMATS[name];
  Deno.test(`\`convert()\` matches the reference when fp32 patterns are random (to ${name})`, () => {
    const next = fp32Sampler(refFormat(name), 0xc0ffee + to.fracBits * 31 + to.expBits);
    const m = new Mismatches();
    for (let i = 0; i < SAMPLES; i++) {
      checkConversion(FP32, to, next(), m, { full: i % 8 === 0 });
    }
    m.assertNone(`fp32 -> ${name} random`);
  });
}
