/**
 * `convert()` from fp32 on every rounding boundary of each target, against the exact reference:
 * all grid points and midpoints (ties) of bf16, fp16, e4m3 and e5m2, the ends of every binade of
 * tf32 and e8m13, each ±1 fp32 ulp, both signs, the overflow thresholds, zeros, infinities and
 * NaNs; every rounding direction x overflow rule, plus FTZ and DAZ.
 *
 * @module
 */
import { FORMATS, FP32 } from "../../src/numerics/mod.ts";
import { boundaryInputs } from "./_boundary_inputs.ts";
import { checkConversion } from "./_check_conversion.ts";
import { Mismatches } from "./_mismatches.ts";
import { refFormat } from "./_ref_formats.ts";

for (const name of ["bf16", "fp16", "e4m3", "e5m2", "tf32", "e8m13"] as const) {
  const to = FORMATS[name];
  const small = to.storageBits <= 16;
  if (small) {
    Deno.test(`\`convert()\` rounds fp32 to ${name} like the reference when the input is any tie or grid point ±1 ulp`, () => {
      const m = new Mismatches();
      for (const bits of boundaryInputs(refFormat(name), { every: true })) {
        checkConversion(FP32, to, bits, m, { full: to.storageBits === 8 });
      }
      m.assertNone(`fp32 -> ${name} every boundary`);
    });
  }
  Deno.test(
    `\`convert()\` matches the reference for ${name} under every overflow rule, FTZ and DAZ when at binade ends`,
    () => {
      const m = new Mismatches();
      for (const bits of boundaryInputs(refFormat(name), { every: false })) {
        checkConversion(FP32, to, bits, m, { full: true });
      }
      m.assertNone(`fp32 -> ${name} binade-end boundaries`);
    },
  );
}
