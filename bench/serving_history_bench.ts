/**
 * Reading a serving history: the fast reader of canonical bytes (`parseServingHistory`) against
 * the generic strict check alone (`parseServingHistoryGeneric`) in the same run, on a history of
 * 256 decode passes of 4,096 entries each (1,048,576 entries, 13 MiB, a quarter of the limit).
 *
 * Run: `deno task bench` (the group prints the fast reader's ratio to the generic baseline).
 *
 * @module
 */
import { encodeServingHistory, type HistoryPass, parseServingHistory } from "../src/claims/mod.ts";
import { parseServingHistoryGeneric } from "../src/claims/serving_history.ts";

const passes: HistoryPass[] = Array.from({ length: 256 }, (_, p) => ({
  entries: Array.from({ length: 4096 }, (_, j) => ({ query: 1, cached: 100 + p + j })),
  self: p % 4096,
  rows: 4096,
  logitsRows: 4096,
}));
const bytes = encodeServingHistory(passes);
let sink = 0;

Deno.bench("history generic check", { group: "history", baseline: true }, () => {
  sink += parseServingHistoryGeneric(bytes).length;
});
Deno.bench("history parseServingHistory", { group: "history" }, () => {
  sink += parseServingHistory(bytes).length;
});
globalThis.addEventListener("unload", () => {
  if (sink === 0.5) console.log(sink); // keeps the results live
});
