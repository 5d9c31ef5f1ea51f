/**
 * `audit estimate` counted m n k for every GEMM record, so a recipe that walks the output
 * thousands of times (red-team finding F3) looked as cheap as one walk. `recordProducts` now
 * counts a named recipe's walks, and nothing for one the verifier refuses before walking.
 */
import assert from "node:assert/strict";
import type { ClaimPredicate } from "../../src/claims/mod.ts";
import { recordProducts } from "../../src/verify/mod.ts";
import { WALK_PRODUCTS } from "../../src/verify/record_products.ts";

const gemm = (kernel: unknown, [m, n, k] = [4, 8, 256]) =>
  ({ kind: "gemm", m, n, k, kernel }) as unknown as ClaimPredicate["workload"];

Deno.test("recordProducts() counts a GEMM recipe's walks after the first, and m n k for a catalog", () => {
  const catalog = { catalog: "demo-small-transformer-a100", catalogSha256: "00".repeat(32) };
  assert.equal(recordProducts(gemm(catalog)), 4 * 8 * 256);
  assert.equal(recordProducts(gemm({ recipe: { family: "single_walk" } })), 4 * 8 * 256);
  const split3 = { recipe: { family: "serial_split_k", splitK: 3, tileK: 64 } };
  assert.equal(recordProducts(gemm(split3)), 4 * 8 * (256 + 2 * WALK_PRODUCTS));
  const sliced = { recipe: { family: "sliced_k", splitK: 2, tileK: 64, warpK: 32 } };
  assert.equal(recordProducts(gemm(sliced)), 4 * 8 * (256 + 3 * WALK_PRODUCTS));
});

Deno.test("recordProducts() counts nothing for a recipe refused before any walk", () => {
  const hostile = { recipe: { family: "sliced_k", splitK: 1024, tileK: 64, warpK: 2 } };
  assert.equal(recordProducts(gemm(hostile, [128, 128, 16])), 0);
  assert.equal(recordProducts(gemm({ recipe: { family: "nope" } })), 0);
});
