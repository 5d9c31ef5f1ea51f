/**
 * `mufuEx2()`'s interpolator rounding, pinned at the inputs where the spec's bias decides the
 * result: `r = (A·2^13 + B·x + C·sq(x) + 0x77e2) >> 15` (spec sfu_tesla_model.md §1, EX2 row, with
 * the squarer `sq(x) = (Σ_{i<17, bit i of x} (x >> (18−i))) >> 1` of the same section). For x in
 * [1, 2) the 7.23 fixed point of PREEX2 is exact (n = 1, f = the fp32 fraction), so the result is
 * 2^1 · r · 2^-23. The inputs are those where the bias sits at a carry: the sum before the bias is
 * 1 or 0 modulo 2^15 away from a multiple of 2^15 past 0x77e2, so a bias one larger (or smaller)
 * moves r by one.
 */
import assert from "node:assert/strict";
import { decodeSfuTables } from "../../../src/hardware/sfu/mod.ts";
import { mufuEx2 } from "../../../src/hardware/sfu/mufu_ex2.ts";
import { readTeslaTableBytes } from "./_fp32_reference.ts";

const tables = decodeSfuTables(readTeslaTableBytes());
const t = tables.ex2;
const BIAS = 0x77e2;

/** The spec's truncated squarer, bit by bit. */
function sq(x: number): number {
  let s = 0;
  for (let i = 0; i < 17; i++) if ((x >>> i) & 1) s += Math.floor(x / 2 ** (18 - i));
  return Math.floor(s / 2);
}

/** The spec's result for x = 1 + f·2^-23 with the given bias. */
function ex2OneToTwo(f: number, bias: number): number {
  const row = (f >>> 17) * 3;
  const lo = f & 0x1ffff;
  const sum = t[row]! * 8192 + t[row + 1]! * lo + t[row + 2]! * sq(lo) + bias;
  const r = Math.floor(sum / 32768); // exact: the sum is an integer below 2^40
  return r >= 2 ** 24 ? 0x40800000 : ((128 << 23) | (r - 2 ** 23)) >>> 0;
}

Deno.test("`mufuEx2()` rounds its interpolation with the bias 0x77e2 (spec sfu_tesla_model.md §1)", () => {
  const [up, down] = [[] as number[], [] as number[]];
  for (let row = 0; row < 64; row++) {
    const [u0, d0] = [up.length, down.length];
    for (let lo = 0; lo < 0x20000 && (up.length < u0 + 4 || down.length < d0 + 4); lo++) {
      const f = (row << 17) | lo;
      const sum = t[row * 3]! * 8192 + t[row * 3 + 1]! * lo + t[row * 3 + 2]! * sq(lo) + BIAS;
      const rem = ((sum % 32768) + 32768) % 32768;
      if (rem === 32767 && up.length < u0 + 4) up.push(f); // bias + 1 carries into r
      if (rem === 0 && down.length < d0 + 4) down.push(f); // bias - 1 borrows from r
    }
  }
  assert.ok(
    up.length >= 100 && down.length >= 100,
    `edge inputs (at most 4 of each kind a row): ${up.length}, ${down.length}`,
  );
  for (const f of [...up, ...down]) {
    const x = (0x3f800000 | f) >>> 0;
    assert.equal(mufuEx2(x, tables), ex2OneToTwo(f, BIAS), `x = 0x${x.toString(16)}`);
  }
  assert.ok(up.every((f) => ex2OneToTwo(f, BIAS + 1) !== ex2OneToTwo(f, BIAS)));
  assert.ok(down.every((f) => ex2OneToTwo(f, BIAS - 1) !== ex2OneToTwo(f, BIAS)));
});
