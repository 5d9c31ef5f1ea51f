/**
 * Slow sweeps of the numerics layer (run with `deno task test:slow`; CI runs the deterministic
 * samples in `tests/numerics/`):
 * - `convert()` from 2,000,000 seeded fp32 patterns per target, every direction (every overflow
 *   rule, FTZ and DAZ for one input in eight);
 * - every bf16/fp16/tf32 tie and grid point ±1 fp32 ulp under every option combination, and
 *   64 indices at each end of every e8m13 binade;
 * - every tf32 pattern through `decode()` and back, plus 2,000,000 fp32 and e8m13 patterns;
 * - `roundPack()` properties with 200,000 runs per format.
 *
 * @module
 */
import fc from "fast-check";
import { type FloatFormat, FORMATS, FP32, roundPack } from "../../../src/numerics/mod.ts";
import { boundaryInputs } from "../../numerics/_boundary_inputs.ts";
import { checkConversion } from "../../numerics/_check_conversion.ts";
import { checkRoundTrip } from "../../numerics/_check_round_trip.ts";
import { dyadic } from "../../numerics/_dyadic.ts";
import { refRound } from "../../numerics/_exact_reference.ts";
import { fp32Sampler } from "../../numerics/_fp32_sampler.ts";
import { Mismatches } from "../../numerics/_mismatches.ts";
import { prng32 } from "../../numerics/_prng.ts";
import { padBits, refFormat } from "../../numerics/_ref_formats.ts";

const TARGETS = ["bf16", "fp16", "e4m3", "e5m2", "tf32", "e8m13"] as const;

for (const name of TARGETS) {
  const to = FORMATS[name];
  Deno.test(`\`convert()\` matches the reference when 2,000,000 fp32 patterns are random (to ${name})`, () => {
    const next = fp32Sampler(refFormat(name), 0x51095eed + to.fracBits * 131 + to.expBits);
    const m = new Mismatches();
    for (let i = 0; i < 2_000_000; i++) checkConversion(FP32, to, next(), m, { full: i % 8 === 0 });
    m.assertNone(`fp32 -> ${name} slow random`);
  });
  Deno.test(`\`convert()\` matches the reference under every option when fp32 sits on any ${name} boundary`, () => {
    const every = name !== "e8m13";
    const m = new Mismatches();
    for (const bits of boundaryInputs(refFormat(name), { every, perBinade: 64 })) {
      checkConversion(FP32, to, bits, m, { full: true });
    }
    m.assertNone(`fp32 -> ${name} slow boundaries`);
  });
}

Deno.test("`decode()` and `roundPack()` round-trip when given every tf32 pattern", () => {
  const m = new Mismatches();
  for (let body = 0; body < 2 ** 19; body++) checkRoundTrip(FORMATS.tf32, body * 2 ** 13, m);
  m.assertNone("tf32 exhaustive");
});

for (const f of [FORMATS.fp32, FORMATS.e8m13]) {
  Deno.test(`\`decode()\` and \`roundPack()\` round-trip when 2,000,000 ${f.name} patterns are random`, () => {
    const pad = 2 ** padBits(refFormat(f.name));
    const next = prng32(0xdec0de + pad);
    const m = new Mismatches();
    for (let i = 0; i < 2_000_000; i++) {
      const raw = next();
      checkRoundTrip(f, raw - (raw % pad), m);
    }
    m.assertNone(`${f.name} slow round trip`);
  });
}

function roundPackProperty(f: FloatFormat, runs: number): void {
  const qmin = f.emin - f.fracBits;
  fc.assert(
    fc.property(
      fc.constantFrom(0 as const, 1 as const),
      fc.maxSafeNat(),
      fc.integer({ min: qmin - 4, max: f.emax + 3 }), // where the leading bit lands
      fc.boolean(),
      fc.constantFrom("rne" as const, "rz" as const, "ru" as const, "rd" as const),
      fc.constantFrom("ieee" as const, "saturate" as const, "infinity" as const),
      fc.boolean(),
      (sign, sig, lead, sticky, mode, overflow, ftz) => {
        const exponent = lead - (sig === 0 ? 1 : BigInt(sig).toString(2).length) + 1;
        const opts = { mode, overflow, ftz };
        const got = roundPack(f, { sign, significand: sig, exponent, sticky }, opts);
        const want = refRound(refFormat(f.name), sign, dyadic(sig, exponent), { ...opts, sticky });
        if (got !== want) throw new Error(`${f.name} ${sig}*2^${exponent}: ${got} vs ${want}`);
      },
    ),
    { numRuns: runs, seed: 0x51 + f.fracBits },
  );
}

for (const f of Object.values(FORMATS)) {
  Deno.test(`\`roundPack()\` matches the reference in 200,000 runs when the format is ${f.name}`, () => {
    roundPackProperty(f, 200_000);
  });
}
