/**
 * `convert()` between every ordered pair of bf16, fp16, e4m3 and e5m2, exhaustively over the
 * source patterns, against the exact reference in every rounding direction; and the exact
 * widening of every small-format pattern to fp32, tf32 and e8m13.
 *
 * @module
 */
import { convert, FORMATS } from "../../src/numerics/mod.ts";
import { dyadicToNumber } from "./_dyadic.ts";
import { refDecode } from "./_exact_reference.ts";
import { checkConversion } from "./_check_conversion.ts";
import { Mismatches } from "./_mismatches.ts";
import { f32Bits, hex } from "./_ref_convert.ts";
import { refFormat } from "./_ref_formats.ts";

const SMALL = ["bf16", "fp16", "e4m3", "e5m2"] as const;

for (const fromName of SMALL) {
  const from = FORMATS[fromName];
  for (const toName of SMALL) {
    if (toName === fromName) continue;
    const to = FORMATS[toName];
    Deno.test(`\`convert()\` matches the reference for every ${fromName} pattern when the target is ${toName}`, () => {
      const m = new Mismatches();
      for (let bits = 0; bits < 2 ** from.storageBits; bits++) {
        checkConversion(from, to, bits, m, { full: from.storageBits === 8 });
      }
      m.assertNone(`${fromName} -> ${toName}`);
    });
  }
}

Deno.test("`convert()` widens every small-format pattern exactly when the target is fp32, tf32 or e8m13", () => {
  const m = new Mismatches();
  for (const fromName of SMALL) {
    const from = FORMATS[fromName];
    for (let bits = 0; bits < 2 ** from.storageBits; bits++) {
      const v = refDecode(refFormat(fromName), bits);
      for (const to of [FORMATS.fp32, FORMATS.tf32, FORMATS.e8m13]) {
        let want: number;
        if (v.kind === "nan") want = to.canonicalNan;
        else if (v.kind === "inf") want = f32Bits(v.sign ? -Infinity : Infinity);
        else want = f32Bits(v.sign ? -dyadicToNumber(v.mag) : dyadicToNumber(v.mag));
        for (const mode of ["rne", "rz", "ru", "rd"] as const) {
          const got = convert(from, to, bits, { mode });
          m.check(
            got === want,
            () =>
              `${fromName} ${hex(bits, from.storageBits)} -> ${to.name} ${mode}: ${hex(got, 32)}`,
          );
        }
      }
    }
  }
  m.assertNone("widening");
});
