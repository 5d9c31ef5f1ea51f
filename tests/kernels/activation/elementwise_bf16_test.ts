import assert from "node:assert/strict";
import { F32_RN } from "../../../src/hardware/mod.ts";
import { fp32ToBf16 } from "../../../src/numerics/mod.ts";
import { addBf16, mulBf16 } from "../../../src/kernels/activation/mod.ts";

/** Every BF16 pattern against specials, subnormals, extremes and ordinary values. */
function operands(): { a: Uint16Array; b: Uint16Array } {
  const others = [
    0x0000,
    0x8000,
    0x0001,
    0x8001,
    0x007f,
    0x0080,
    0x7f7f,
    0xff7f,
    0x7f80,
    0xff80,
    0x7fc0,
    0x7f81,
    0xffff,
    0x3f80,
    0xbf80,
    0x3f81,
    0x4000,
    0x0100,
    0x1f80,
    0x5f80,
    0x3e00,
    0xc2f7,
  ];
  const a = new Uint16Array(65536 * others.length);
  const b = new Uint16Array(a.length);
  others.forEach((o, i) => {
    for (let x = 0; x < 65536; x++) {
      a[i * 65536 + x] = x;
      b[i * 65536 + x] = o;
    }
  });
  return { a, b };
}

Deno.test("`mulBf16()` and `addBf16()` equal the FP32 unit's rounding of every BF16 pattern against adversarial operands", () => {
  const { a, b } = operands();
  const mul = mulBf16(a, b);
  const add = addBf16(a, b);
  const addBA = addBf16(b, a);
  for (let i = 0; i < a.length; i++) {
    const x = a[i]! << 16 >>> 0;
    const y = b[i]! << 16 >>> 0;
    const wantMul = fp32ToBf16(F32_RN.mul(x, y));
    const wantAdd = fp32ToBf16(F32_RN.add(x, y));
    if (mul[i] !== wantMul || add[i] !== wantAdd || addBA[i] !== wantAdd) {
      assert.fail(
        `patterns ${a[i]!.toString(16)} and ${b[i]!.toString(16)}: mul ${
          mul[i]
        } (want ${wantMul}), ` +
          `add ${add[i]} / ${addBA[i]} (want ${wantAdd})`,
      );
    }
  }
});

Deno.test("`mulBf16()` and `addBf16()` refuse operands of different lengths", () => {
  assert.throws(() => mulBf16(new Uint16Array(2), new Uint16Array(3)), RangeError);
  assert.throws(() => addBf16(new Uint16Array(5000), new Uint16Array(4999)), RangeError);
});
