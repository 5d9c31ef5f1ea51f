import assert from "node:assert/strict";
import { sfuSquare, sfuSquareSerial } from "../../../src/hardware/sfu/sfu_square.ts";

Deno.test("`sfuSquare()` stays within 9 units below x²/2^19 for every 17-bit x", () => {
  for (let x = 0; x < 0x20000; x++) {
    const exact = (x * x) / 2 ** 19; // x² < 2^34: exact in float64
    const s = sfuSquare(x);
    assert.ok(s <= exact && s > exact - 10, `x=${x}: ${s} vs ${exact}`);
  }
});

Deno.test("`sfuSquare()` ignores bits above 16", () => {
  assert.equal(sfuSquare(0x20000 | 0x1234), sfuSquare(0x1234));
});

Deno.test("`sfuSquare()` (table) equals the bit-serial `sfuSquareSerial()` on every 17-bit input and above", () => {
  for (let x = 0; x < 0x40000; x++) {
    if (sfuSquare(x) !== sfuSquareSerial(x)) assert.fail(`x=${x}`);
  }
});
