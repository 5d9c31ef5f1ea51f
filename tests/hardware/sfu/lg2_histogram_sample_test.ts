/**
 * CI sample (every 61st mantissa) of the exhaustive LG2 figures in
 * tests/slow/hardware/sfu/lg2_histogram_full_test.ts. The pinned counts were taken from this
 * model after the slow suite ran; LG2 has no hardware measurement (status `model-only`), so a
 * change here means the model changed, not that it got closer to a GPU. The CR reference is the
 * `ieee` mode, itself checked against an independent BigInt reference (ieee_lg2_test.ts).
 */
import assert from "node:assert/strict";
import { decodeSfuTables } from "../../../src/hardware/sfu/mod.ts";
import { ieeeLg2 } from "../../../src/hardware/sfu/ieee_lg2.ts";
import { mufuLg2 } from "../../../src/hardware/sfu/mufu_lg2.ts";
import { readTeslaTableBytes } from "./_fp32_reference.ts";
import { absErrorStats, mantissaHistogram } from "./_histogram.ts";

const t = decodeSfuTables(readTeslaTableBytes());
const fns = { model: (x: number) => mufuLg2(x, t), reference: ieeeLg2, stride: 61 };

Deno.test("`mufuLg2()` keeps its absolute error on the [0.5, 2) CI sample", () => {
  assert.deepEqual(absErrorStats(0x3f000000, fns), { equal: 6709, maxUnits: 4 });
  assert.deepEqual(absErrorStats(0x3f800000, fns), { equal: 47405, maxUnits: 2.625 });
});

Deno.test("`mufuLg2()` keeps its ulp histograms on the CI sample of [2, 4), [2^23, 2^24), [2^-27, 2^-26)", () => {
  assert.deepEqual(mantissaHistogram(0x40000000, fns), { "0": 103496, "1": 17439, "-1": 16584 });
  // Large |log2 x|: the integer part fills the top bits and the truncation only ever drops.
  assert.deepEqual(mantissaHistogram(0x4b000000, fns), { "0": 73296, "-1": 64223 });
  assert.deepEqual(mantissaHistogram(0x32000000, fns), { "0": 64223, "-1": 73296 });
});
