/**
 * CI sample of the exhaustive histograms in tests/slow/hardware/sfu/: every 61st mantissa (RCP,
 * RSQ) or every 241st grid point (EX2). The pinned counts were taken from this model after the
 * slow suite reproduced the spec's full-domain figures exactly (RCP 7,280,086 / 1,108,522; RSQ
 * 6,505,163 and 6,637,923 equal, 8 off by two; EX2 sfu_tesla_model.md §3), so a change here
 * means the model changed. The CR reference is the `ieee` mode, itself checked against BigInt.
 */
import assert from "node:assert/strict";
import { decodeSfuTables } from "../../../src/hardware/sfu/mod.ts";
import { ieeeEx2 } from "../../../src/hardware/sfu/ieee_ex2.ts";
import { ieeeRcp } from "../../../src/hardware/sfu/ieee_rcp.ts";
import { ieeeRsqrt } from "../../../src/hardware/sfu/ieee_rsqrt.ts";
import { mufuEx2 } from "../../../src/hardware/sfu/mufu_ex2.ts";
import { mufuRcp } from "../../../src/hardware/sfu/mufu_rcp.ts";
import { mufuRsqrt } from "../../../src/hardware/sfu/mufu_rsqrt.ts";
import { readTeslaTableBytes } from "./_fp32_reference.ts";
import { fractionGridHistogram, mantissaHistogram } from "./_histogram.ts";

const t = decodeSfuTables(readTeslaTableBytes());

Deno.test("`mufuRcp()` keeps its error histogram on the CI mantissa sample", () => {
  const fns = { model: (x: number) => mufuRcp(x, t), reference: ieeeRcp, stride: 61 };
  assert.deepEqual(mantissaHistogram(0x3f800000, fns), { "0": 119513, "1": 11982, "-1": 6024 });
  // Sign symmetry: negative inputs give the same magnitudes, so the same histogram.
  assert.deepEqual(mantissaHistogram(0xbf800000, fns), { "0": 119513, "1": 11982, "-1": 6024 });
});

Deno.test("`mufuRsqrt()` keeps its error histograms on the CI mantissa sample", () => {
  const fns = { model: (x: number) => mufuRsqrt(x, t), reference: ieeeRsqrt, stride: 61 };
  assert.deepEqual(mantissaHistogram(0x3f800000, fns), { "0": 106625, "1": 10187, "-1": 20707 });
  assert.deepEqual(mantissaHistogram(0x40000000, fns), { "0": 108724, "1": 10951, "-1": 17844 });
});

Deno.test("`mufuEx2()` keeps its error histograms on the CI [0,1) and (-1,0] grid samples", () => {
  const fns = { model: (x: number) => mufuEx2(x, t), reference: ieeeEx2, stride: 241 };
  assert.deepEqual(fractionGridHistogram(false, fns), { "0": 21237, "1": 13560, "-1": 11 });
  assert.deepEqual(fractionGridHistogram(true, fns), { "0": 13858, "-1": 20606, "-2": 344 });
});

Deno.test("`mufuRcp()` and `mufuRsqrt()` scale exactly with the exponent", () => {
  for (let m = 0; m < 0x800000; m += 7919) {
    const r1 = mufuRcp(0x3f800000 | m, t);
    // rcp(x·2^k) = rcp(x)·2^-k while both stay normal.
    assert.equal(mufuRcp(0x4b000000 | m, t), r1 - (23 << 23));
    const s1 = mufuRsqrt(0x3f800000 | m, t);
    assert.equal(mufuRsqrt(0x42800000 | m, t), s1 - (3 << 23)); // x·2^6 -> 2^-3
  }
});
