import assert from "node:assert/strict";
import { lookupRecipe, parseDispatchCatalog } from "../../../src/kernels/gemm/mod.ts";

const DIR = new URL("../../../tables/catalogs/", import.meta.url);
const load = (name: string) =>
  parseDispatchCatalog(
    JSON.parse(Deno.readTextFileSync(new URL(`${name}-cublas-qwen3-4b-ffn.json`, DIR))),
  );
const q = (m: number, n: number, k: number) => ({
  m,
  n,
  k,
  dtype: "bf16",
  out: "bf16",
  layout: "tn" as const,
});

Deno.test("lookupRecipe() returns the observed A100 dispatch (spec gemm.md §7)", () => {
  const c = load("a100");
  const r = lookupRecipe(c, q(100, 2560, 9728));
  assert.ok(r.covered && r.recipe.family === "parallel_split_k" && r.recipe.splitK === 5);
  const s = lookupRecipe(c, q(1000, 2560, 9728));
  assert.ok(s.covered && s.recipe.family === "serial_split_k" && s.recipe.splitK === 4);
  const w = lookupRecipe(c, q(4000, 9728, 2560));
  assert.ok(w.covered && w.recipe.family === "single_walk");
});

Deno.test("lookupRecipe() reports an unsampled M as not covered, never a fallback", () => {
  const r = lookupRecipe(load("l40s"), q(101, 2560, 9728));
  assert.equal(r.covered, false);
  assert.match((r as { reason: string }).reason, /does not cover M=101/);
});

Deno.test("lookupRecipe() refuses the H100 nvjet dispatch that no recipe reproduces", () => {
  const r = lookupRecipe(load("h100-sxm"), q(100, 2560, 9728));
  assert.equal(r.covered, false);
  assert.match((r as { reason: string }).reason, /nvjet/);
  assert.ok(lookupRecipe(load("h100-sxm"), q(250, 2560, 9728)).covered);
});

Deno.test("lookupRecipe() refuses other dtypes and layouts", () => {
  const c = load("a100");
  assert.equal(
    lookupRecipe(c, { ...q(100, 2560, 9728), dtype: "fp16", out: "fp16" }).covered,
    false,
  );
  assert.equal(lookupRecipe(c, { ...q(100, 2560, 9728), layout: "nn" }).covered, false);
});

Deno.test("parseDispatchCatalog() refuses overlapping regions and bad recipes", () => {
  const base = JSON.parse(Deno.readTextFileSync(new URL("a100-cublas-qwen3-4b-ffn.json", DIR)));
  const dup = structuredClone(base);
  dup.entries.push({ ...dup.entries[0], mMin: 50, mMax: 150 });
  assert.throws(() => parseDispatchCatalog(dup), /overlaps/);
  const bad = structuredClone(base);
  bad.entries[0].recipe = { family: "serial_split_k", splitK: -1, tileK: 64 };
  assert.throws(() => parseDispatchCatalog(bad), /entries\[0\]\.recipe\.splitK/);
});
