/**
 * The `ieee` SFU's EX2 (`ieeeEx2`, correctly rounded) against the table-model MUFU.EX2 (the
 * baseline) in the same run, 4096 calls per iteration on FA2 softmax arguments (S·scale_log2 −
 * max_scaled: non-positive, |x| < 30). A strict-IEEE stack runs one EX2 a score in FA2's online
 * softmax on the TypeScript step, where it was the largest cost outside the tile products.
 *
 * Run: `deno task bench` (the group prints `ieeeEx2`'s ratio to the table model).
 *
 * @module
 */
import { createSfu, decodeSfuTables } from "../src/hardware/mod.ts";

const N = 4096;
const f32 = new Float32Array(N);
let state = 12345;
const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0);
for (let i = 0; i < N; i++) f32[i] = -(next() / 2 ** 32) * 30;
const args = new Uint32Array(f32.buffer);
const table = createSfu({
  mode: "tesla-table",
  tables: decodeSfuTables(
    await Deno.readFile(new URL("../tables/sfu/tesla_sfu_v1.bin", import.meta.url)),
  ),
});
const ieee = createSfu({ mode: "ieee" });
let sink = 0;

Deno.bench("ex2 table model", { group: "ex2", baseline: true }, () => {
  for (let i = 0; i < N; i++) sink ^= table.ex2(args[i]!);
});
Deno.bench("ex2 ieee (correctly rounded)", { group: "ex2" }, () => {
  for (let i = 0; i < N; i++) sink ^= ieee.ex2(args[i]!);
});
globalThis.addEventListener("unload", () => {
  if (sink === 0.5) console.log(sink); // keeps the results live
});
