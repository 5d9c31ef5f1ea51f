import assert from "node:assert/strict";
import { openAssetStore } from "../../src/assets/mod.ts";
import { InputError } from "../../src/errors.ts";
import {
  listAssetIds,
  loadAsset,
  recipeFromDescriptor,
  recipeNameContradiction,
  RECIPES,
} from "../../src/resolve/mod.ts";
import { isCode } from "../_assert_code.ts";

const store = await openAssetStore();
const KWALK = {
  family: "kwalk",
  threadblock: [128, 128, 64],
  warp: [64, 64, 64],
  instruction: [16, 8, 16],
};

Deno.test("recipeNameContradiction() accepts every bundled recipe under its own name, its fields in any order", async () => {
  for (const id of listAssetIds(store, RECIPES)) {
    const file = (await loadAsset(store, { kind: RECIPES, id })).value;
    assert.equal(await recipeNameContradiction(store, file), null, id);
    const reversed = Object.fromEntries(Object.entries(file).reverse());
    assert.equal(await recipeNameContradiction(store, reversed), null, `${id} reordered`);
  }
  const { name: _n, ...kwalk } = (await loadAsset(store, {
    kind: RECIPES,
    id: "cutlass-kwalk-128x128x64",
  })).value;
  assert.equal(
    await recipeNameContradiction(store, { ...kwalk, name: "cutlass-kwalk-128x128x64" }),
    null,
    "no schema field",
  );
});

Deno.test("recipeNameContradiction() names both bodies when a bundled recipe's name comes with another", async () => {
  const why = await recipeNameContradiction(store, { ...KWALK, name: "cublas-serial-split-k2" });
  assert.equal(
    why,
    `it is named 'cublas-serial-split-k2', the bundled recipe ` +
      `{"family":"serial_split_k","splitK":2,"tileK":64}, but describes ` +
      `{"family":"kwalk","threadblock":[128,128,64],"warp":[64,64,64],"instruction":[16,8,16]}`,
  );
  // One parameter apart is another kernel.
  const k3 = { family: "serial_split_k", splitK: 3, tileK: 64, name: "cublas-serial-split-k2" };
  assert.match((await recipeNameContradiction(store, k3))!, /but describes .*"splitK":3/);
  const warp = { ...KWALK, warp: [32, 64, 64], name: "cutlass-kwalk-128x128x64" };
  assert.match(
    (await recipeNameContradiction(store, warp))!,
    /but describes .*"warp":\[32,64,64\]/,
  );
});

Deno.test("recipeNameContradiction() leaves a body under no name, or a name no bundled recipe has, to its body", async () => {
  assert.equal(await recipeNameContradiction(store, KWALK), null);
  assert.equal(await recipeNameContradiction(store, { ...KWALK, name: "my-kwalk" }), null);
  assert.equal(
    await recipeNameContradiction(store, { ...KWALK, name: "cublas-serial-split-k4" }),
    null,
  );
});

Deno.test("recipeFromDescriptor() refuses a bundled name on another body as RECIPE_INVALID, naming where it came from", async () => {
  await assert.rejects(
    () =>
      recipeFromDescriptor(store, {
        json: { ...KWALK, name: "cublas-single-walk" },
        where: "r.json",
      }),
    (e) =>
      isCode(InputError, "RECIPE_INVALID")(e) &&
      /^Cannot use recipe from r\.json: it is named 'cublas-single-walk', the bundled recipe \{"family":"single_walk"\}, but describes \{"family":"kwalk",.*; give the bundled recipe by its name, or name this one otherwise$/
        .test((e as Error).message),
  );
  await assert.rejects(
    () => recipeFromDescriptor(store, { json: { family: "kwalk" }, where: "r.json" }),
    isCode(InputError, "RECIPE_INVALID"),
  );
  const r = await recipeFromDescriptor(store, {
    json: { ...KWALK, name: "mine" },
    where: "r.json",
  });
  assert.deepEqual(r, KWALK);
});
