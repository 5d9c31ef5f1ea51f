/**
 * Exhaustive over all 2^23 mantissas of five binades: the plausibility check of the `model-only`
 * MUFU.LG2 model (envytools' G80 algorithm; no GPU measurement exists). Pinned against the
 * correctly rounded `ieee` mode, and against float64 `Math.log2` for the absolute error on
 * [0.5, 2), which is compared with the accuracy documented for `lg2.approx.f32` (maximum
 * absolute error 2^-22 for inputs in (0.5, 2)). Run with `deno task test:slow` (about a minute).
 *
 * Findings: on [0.5, 1) the model is at most 4·2^-24 from the correctly rounded value and at
 * most 2^-22.148 from log2 x; on [1, 2) 2.6875·2^-24 and 2^-22.577; on [2, 4) within 1 ulp
 * either way; where |log2 x| ≥ 16 the truncation leaves it equal or 1 ulp toward zero.
 */
import assert from "node:assert/strict";
import { decodeSfuTables } from "../../../../src/hardware/sfu/mod.ts";
import { ieeeLg2 } from "../../../../src/hardware/sfu/ieee_lg2.ts";
import { mufuLg2 } from "../../../../src/hardware/sfu/mufu_lg2.ts";
import { readTeslaTableBytes } from "../../../hardware/sfu/_fp32_reference.ts";
import { absErrorStats, mantissaHistogram } from "../../../hardware/sfu/_histogram.ts";

const t = decodeSfuTables(readTeslaTableBytes());
const fns = { model: (x: number) => mufuLg2(x, t), reference: ieeeLg2, stride: 1 };
const _f = new Float32Array(1);
const _u = new Uint32Array(_f.buffer);
const value = (b: number) => {
  _u[0] = b;
  return _f[0] as number;
};

/** Largest |model(x) − log2 x| over a binade, log2 in float64 (error near 2^-53 here). */
function maxAbsError(base: number): number {
  let max = 0;
  for (let m = 0; m < 0x800000; m++) {
    const x = base | m;
    max = Math.max(max, Math.abs(value(mufuLg2(x, t)) - Math.log2(value(x))));
  }
  return max;
}

Deno.test("`mufuLg2()` stays below 2^-22 absolute error on [0.5, 2)", () => {
  assert.deepEqual(absErrorStats(0x3f000000, fns), { equal: 410016, maxUnits: 4 });
  assert.deepEqual(absErrorStats(0x3f800000, fns), { equal: 2878730, maxUnits: 2.6875 });
  const lo = Math.log2(maxAbsError(0x3f000000));
  const hi = Math.log2(maxAbsError(0x3f800000));
  assert.ok(Math.abs(lo - -22.1476) < 1e-3 && Math.abs(hi - -22.5770) < 1e-3, `${lo} ${hi}`);
  assert.ok(lo < -22 && hi < -22);
});

Deno.test("`mufuLg2()` is within 1 ulp on [2, 4), [2^23, 2^24) and [2^-27, 2^-26)", () => {
  assert.deepEqual(mantissaHistogram(0x40000000, fns), {
    "0": 6309867,
    "1": 1070111,
    "-1": 1008630,
  });
  assert.deepEqual(mantissaHistogram(0x4b000000, fns), { "0": 4459532, "-1": 3929076 });
  assert.deepEqual(mantissaHistogram(0x32000000, fns), { "0": 3929076, "-1": 4459532 });
});
