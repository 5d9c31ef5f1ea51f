/**
 * Slow suite: the TS libdevice recipes against the libdevice CPU oracle (built on demand from the
 * toolkit's bitcode by tools/libdevice_oracle/build.sh). Default: every 257th FP32 pattern
 * (16.7 M inputs per function, a few seconds each). `BITAUDIT_MATH_FULL=1`: all 2^32 patterns
 * (about 25-30 min per function on one core). `BITAUDIT_MATH_FNS=sinf,expf` limits the functions.
 * expf, exp2f, rsqrtf and tanhf execute MUFU instructions: both sides use the Tesla SFU table model
 * (TS: src/hardware/sfu; oracle: its independent C port, tools/libdevice_oracle/mufu.c), fed
 * from the same digest-checked ROM asset.
 */
import assert from "node:assert/strict";
import {
  cudaCosf,
  cudaExp2f,
  cudaExpf,
  cudaLogf,
  cudaRsqrtf,
  cudaSinf,
  cudaTanhf,
} from "../../../../src/kernels/math/mod.ts";
import { fmaF32 } from "../../../../src/hardware/mod.ts";
import { oracleRecords, sweep } from "./_oracle.ts";
import { teslaSfu } from "../../../hardware/sfu/_tesla_sfu.ts";

const FULL = Deno.env.get("BITAUDIT_MATH_FULL") === "1";
const RANGE = FULL
  ? { start: 0, count: 2 ** 32, stride: 1 }
  : { start: 0, count: Math.ceil(2 ** 32 / 257), stride: 257 };

const ONLY = Deno.env.get("BITAUDIT_MATH_FNS")?.split(",");
const sfu = teslaSfu();
const FNS: [string, (x: number) => number][] = [
  ["sinf", cudaSinf],
  ["cosf", cudaCosf],
  ["logf", cudaLogf],
  ["expf", (x) => cudaExpf(x, sfu)],
  ["exp2f", (x) => cudaExp2f(x, sfu)],
  ["rsqrtf", (x) => cudaRsqrtf(x, sfu)],
  ["tanhf", (x) => cudaTanhf(x, sfu)],
];

/** TS name of a libdevice function: "sinf" -> "cudaSinf". */
const label = (name: string) => `cuda${name[0]!.toUpperCase()}${name.slice(1)}`;

for (const [name, fn] of FNS) {
  Deno.test({
    name: `\`${label(name)}()\` matches the libdevice oracle on ${RANGE.count} inputs`,
    ignore: ONLY !== undefined && !ONLY.includes(name),
    fn: async () => {
      const t0 = performance.now();
      const r = await sweep(name, fn, RANGE);
      const s = ((performance.now() - t0) / 1000).toFixed(0);
      console.log(`${name}: ${r.count} inputs, ${r.mismatches} mismatches, ${s} s`);
      assert.deepEqual({ mismatches: r.mismatches, first: r.first }, { mismatches: 0, first: [] });
    },
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

/** Every pattern with a biased exponent in [lo, hi], both signs. */
async function denseBinades(name: string, fn: (x: number) => number, lo: number, hi: number) {
  let mismatches = 0;
  const first: [number, number, number][] = [];
  for (const sign of [0, 0x80000000]) {
    const count = (hi - lo + 1) * 2 ** 23;
    const r = await sweep(name, fn, { start: (sign | (lo << 23)) >>> 0, count, stride: 1 });
    mismatches += r.mismatches;
    first.push(...r.first.slice(0, 10 - first.length));
  }
  return { mismatches, first };
}

for (const [name, lo, hi] of [["tanhf", 126, 130], ["expf", 126, 133]] as const) {
  Deno.test({
    name: `\`${
      label(name)
    }()\` matches the oracle on every pattern of exponents ${lo}-${hi}, where MUFU decides`,
    ignore: ONLY !== undefined && !ONLY.includes(name),
    fn: async () => {
      const fn = FNS.find(([n]) => n === name)![1];
      assert.deepEqual(await denseBinades(name, fn, lo, hi), { mismatches: 0, first: [] });
    },
  });
}
