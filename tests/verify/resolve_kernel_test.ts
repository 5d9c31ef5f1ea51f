import assert from "node:assert/strict";
import { openAssetStore } from "../../src/assets/mod.ts";
import { DISPATCH_CATALOGS, loadAsset } from "../../src/resolve/mod.ts";
import { _resolveKernel } from "../../src/verify/resolve_kernel.ts";
import { _Stop } from "../../src/verify/_stop.ts";

const store = await openAssetStore();
const catalog = "demo-small-transformer-a100";
const { sha256 } = await loadAsset(store, { kind: DISPATCH_CATALOGS, id: catalog });
const catalogRef = { catalog, catalogSha256: sha256 };

/** The stop `_resolveKernel` throws for one reference and stack, or null when it resolves. */
async function stopOf(
  kernel: Parameters<typeof _resolveKernel>[1]["kernel"],
  stackId: string,
  kernelSource: string,
): Promise<_Stop | null> {
  try {
    await _resolveKernel(store, { kernel, stackId, kernelSource, profileId: "a100" });
    return null;
  } catch (e) {
    if (e instanceof _Stop) return e;
    throw e;
  }
}

Deno.test("_resolveKernel() resolves a catalog on a catalog stack and a recipe on a recipe stack", async () => {
  assert.equal(await stopOf(catalogRef, "pytorch-cublas-linear", "catalog"), null);
  assert.equal(
    await stopOf({ recipe: { family: "single_walk" } }, "cutlass-3.5-default", "recipe"),
    null,
  );
});

Deno.test("_resolveKernel() fails a record whose kernel is not of its stack's kind, either way", async () => {
  const recipeOnCatalog = await stopOf(
    { recipe: { family: "single_walk" } },
    "pytorch-cublas-linear",
    "catalog",
  );
  assert.equal(recipeOnCatalog?.status, "FAIL");
  assert.match(recipeOnCatalog!.why, /dispatches through a catalog, but the record names a recipe/);
  // A cuBLAS catalog on a CUTLASS stack: recomputing it would check a stack the record does not
  // name, and the PASS would be signed for "ran CUTLASS".
  const catalogOnRecipe = await stopOf(catalogRef, "cutlass-3.5-default", "recipe");
  assert.equal(catalogOnRecipe?.status, "FAIL");
  assert.match(
    catalogOnRecipe!.why,
    /stack 'cutlass-3.5-default' runs explicit recipes, but the record names catalog/,
  );
});

Deno.test("_resolveKernel() fails a recipe named after a bundled recipe it is not, and resolves one under another name to its body", async () => {
  const kwalk = {
    family: "kwalk",
    threadblock: [128, 128, 64],
    warp: [64, 64, 64],
    instruction: [16, 8, 16],
  };
  const lie = await stopOf(
    { recipe: { ...kwalk, name: "cublas-serial-split-k2" } },
    "cutlass-3.5-hf-flash-attn",
    "recipe",
  );
  assert.equal(lie?.status, "FAIL");
  assert.match(
    lie!.why,
    /^the record's GEMM recipe contradicts its name: it is named 'cublas-serial-split-k2', the bundled recipe \{"family":"serial_split_k","splitK":2,"tileK":64\}, but describes \{"family":"kwalk"/,
  );
  const own = { recipe: { ...kwalk, name: "my-kwalk" } };
  assert.equal(await stopOf(own, "cutlass-3.5-hf-flash-attn", "recipe"), null);
  const resolved = await _resolveKernel(store, {
    kernel: own,
    stackId: "cutlass-3.5-hf-flash-attn",
    kernelSource: "recipe",
    profileId: "a100",
  });
  assert.deepEqual(resolved, { recipe: kwalk });
  const bundled = { recipe: { ...kwalk, name: "cutlass-kwalk-128x128x64" } };
  assert.equal(await stopOf(bundled, "cutlass-3.5-hf-flash-attn", "recipe"), null);
});
