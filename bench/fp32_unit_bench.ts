/**
 * FP32 unit throughput: the float64 fast paths (`f32Arith` add/mul/fma, nearest-even with and
 * without FTZ, and toward zero) against the `roundPack` reference (`floatAdd`/`floatMul`/
 * `floatFma` on FP32) in the same run, 4096 operations per iteration on normal operands.
 *
 * Run: `deno task bench` (each group prints the fast path's ratio to its reference baseline).
 *
 * @module
 */
import { f32Arith } from "../src/hardware/mod.ts";
import { floatAdd, floatFma, floatMul, FP32, type RoundingMode } from "../src/numerics/mod.ts";

const N = 4096;
let state = 12345;
const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0);
const operands = () =>
  Uint32Array.from(
    { length: N },
    () => ((next() & 0x807fffff) | ((100 + (next() % 56)) << 23)) >>> 0,
  );
const a = operands(), b = operands(), c = operands();
let sink = 0;

const settings: [string, { mode: RoundingMode; ftz: boolean }][] = [
  ["rn", { mode: "rne", ftz: false }],
  ["rn.ftz", { mode: "rne", ftz: true }],
  ["rz", { mode: "rz", ftz: false }],
];
for (const [tag, o] of settings) {
  const fast = f32Arith(o);
  const ref = { ...o, daz: o.ftz };
  Deno.bench(`add.${tag} reference`, { group: `add.${tag}`, baseline: true }, () => {
    for (let i = 0; i < N; i++) sink ^= floatAdd(FP32, [a[i]!, b[i]!], ref);
  });
  Deno.bench(`add.${tag} f32Arith`, { group: `add.${tag}` }, () => {
    for (let i = 0; i < N; i++) sink ^= fast.add(a[i]!, b[i]!);
  });
  Deno.bench(`mul.${tag} reference`, { group: `mul.${tag}`, baseline: true }, () => {
    for (let i = 0; i < N; i++) sink ^= floatMul(FP32, [a[i]!, b[i]!], ref);
  });
  Deno.bench(`mul.${tag} f32Arith`, { group: `mul.${tag}` }, () => {
    for (let i = 0; i < N; i++) sink ^= fast.mul(a[i]!, b[i]!);
  });
  Deno.bench(`fma.${tag} reference`, { group: `fma.${tag}`, baseline: true }, () => {
    for (let i = 0; i < N; i++) sink ^= floatFma(FP32, [a[i]!, b[i]!, c[i]!], ref);
  });
  Deno.bench(`fma.${tag} f32Arith`, { group: `fma.${tag}` }, () => {
    for (let i = 0; i < N; i++) sink ^= fast.fma(a[i]!, b[i]!, c[i]!);
  });
}
globalThis.addEventListener("unload", () => {
  if (sink === 0.5) console.log(sink); // keeps the results live
});
