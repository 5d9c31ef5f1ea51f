import assert from "node:assert/strict";
import { _POW2, _POW2_NEG } from "../../../src/hardware/sfu/_pow2.ts";

/** 2^i as float64 from its bit pattern (exponent field i + 1023, fraction 0). */
function pow2Bits(i: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setUint32(0, (i + 1023) << 20);
  return view.getFloat64(0);
}

Deno.test("`_POW2` and `_POW2_NEG` hold 2^i and 2^-i exactly for every i in [0, 48] (the exponents `ieeeEx2` scales by)", () => {
  assert.equal(_POW2.length, 49);
  assert.equal(_POW2_NEG.length, 49);
  for (let i = 0; i <= 48; i++) {
    assert.ok(Object.is(_POW2[i], pow2Bits(i)), `2^${i}`);
    assert.ok(Object.is(_POW2_NEG[i], pow2Bits(-i)), `2^-${i}`);
  }
});
