/**
 * Slow suite: the TS libdevice recipes against the libdevice CPU oracle (built on demand from the
 * toolkit's bitcode by tools/libdevice_oracle/build.sh). Default: every 257th FP32 pattern
 * (16.7 M inputs per function, a few seconds each). `BITAUDIT_MATH_FULL=1`: all 2^32 patterns
 * (about 15-20 min per function on one core for each side).
 */
import assert from "node:assert/strict";
import { cudaCosf, cudaLogf, cudaSinf, fmaF32 } from "../../../../src/kernels/math/mod.ts";
import { oracleRecords, sweep } from "./_oracle.ts";

const FULL = Deno.env.get("BITAUDIT_MATH_FULL") === "1";
const RANGE = FULL
  ? { start: 0, count: 2 ** 32, stride: 1 }
  : { start: 0, count: Math.ceil(2 ** 32 / 257), stride: 257 };

for (const [name, fn] of [["sinf", cudaSinf], ["cosf", cudaCosf], ["logf", cudaLogf]] as const) {
  Deno.test(`\`cuda${name[0]!.toUpperCase()}${name.slice(1)}()\` matches the libdevice oracle on ${RANGE.count} inputs`, () => {
    const r = sweep(name, fn, RANGE);
    assert.deepEqual({ mismatches: r.mismatches, first: r.first }, { mismatches: 0, first: [] });
  });
}

/** splitmix32-style generator (deterministic). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

Deno.test("`fmaF32()` matches the oracle's fmaf in all modes on 4 M random and hard triples", async () => {
  const next = rng(2024);
  const n = 1 << 20;
  const t = new Uint32Array(3 * n);
  for (let i = 0; i < n; i++) {
    const a = next(), b = next();
    let c = next();
    const kind = i % 4;
    if (kind === 1) { // near-cancellation: c ~ -a*b
      const e = Math.min(254, Math.max(0, ((a >>> 23) & 0xff) + ((b >>> 23) & 0xff) - 127));
      c = ((((a ^ b) & 0x80000000) ^ 0x80000000) | (e << 23) | (next() & 0x7fffff)) >>> 0;
    } else if (kind === 2) { // subnormal range: small exponents everywhere
      c = (c & 0x807fffff) >>> 0;
    } else if (kind === 3) { // halfway hunting: c tiny relative to a*b, short significands
      c =
        ((c & 0x80000000) | (((((a >>> 23) & 0xff) + ((b >>> 23) & 0xff) - 151) & 0xff) << 23)) >>>
        0;
    }
    t[3 * i] = a;
    t[3 * i + 1] = kind === 2 ? (b & 0x9fffffff) >>> 0 : b;
    t[3 * i + 2] = c;
  }
  const modes = { fmaf_rn: "rne", fmaf_rz: "rz", fmaf_ru: "ru", fmaf_rd: "rd" } as const;
  for (const [name, mode] of Object.entries(modes)) {
    const ref = await oracleRecords(name, t);
    assert.equal(ref.length, n);
    let bad = 0;
    for (let i = 0; i < n; i++) {
      if (fmaF32([t[3 * i]!, t[3 * i + 1]!, t[3 * i + 2]!], { mode }) !== ref[i]) bad++;
    }
    assert.equal(bad, 0, name);
  }
});
