/**
 * A record's GEMM recipe is signed verbatim, `name` and all, but only its body was recomputed: the
 * bundled `cutlass-kwalk-128x128x64` body renamed `cublas-serial-split-k2` audited PASS ("GEMM
 * kernels (recipe kwalk)") while the signed record named a serial split-K kernel that never ran.
 * A name that is a bundled recipe's id now states that recipe: another body FAILs the record as
 * contradicting itself, before anything is recomputed. A name no bundled recipe has states
 * nothing more than its body, which is recomputed as before.
 */
import assert from "node:assert/strict";
import type { ClaimPredicate } from "../../src/claims/mod.ts";
import { type RecordResult, verifyRecord } from "../../src/verify/mod.ts";
import { engineWalker } from "../model/forward/_forward_fixture.ts";
import { recipeGemmRecord } from "./_recipe_gemm.ts";
import { type Blobs, chainLog, memoryStore, store } from "./_recompute_fixture.ts";

/** The bundled recipes' files, by name. */
const BUNDLED = new Map<string, Record<string, unknown>>();
for await (const f of Deno.readDir(new URL("../../profiles/recipes/", import.meta.url))) {
  const json = JSON.parse(
    await Deno.readTextFile(new URL(`../../profiles/recipes/${f.name}`, import.meta.url)),
  );
  BUNDLED.set(json.name, json);
}

/** A bundled recipe's file, with `name` set to another value (or removed, for undefined). */
function renamed(id: string, name: string | undefined): Record<string, unknown> {
  const { name: _own, ...body } = BUNDLED.get(id)!;
  return name === undefined ? body : { ...body, name };
}

/** A 64 x 32 x 256 bf16 GEMM record on a CUTLASS (recipe) stack, its tensors committed. */
function gemmRecord(
  recipe: Record<string, unknown>,
  blobs: Blobs,
  fingerprint?: string,
): ClaimPredicate {
  return recipeGemmRecord(recipe, { blobs, logId: "recipe-name", mnk: [64, 32, 256], fingerprint });
}

function verify(p: ClaimPredicate, blobs: Blobs): Promise<RecordResult> {
  return verifyRecord(
    { store, blobs: memoryStore(blobs), walker: engineWalker },
    { log: chainLog([p]), index: 0 },
  );
}

/** The record's recipe with the fingerprint its body computes (from a first, failing run). */
async function honest(recipe: Record<string, unknown>, blobs: Blobs): Promise<ClaimPredicate> {
  const first = await verify(gemmRecord(recipe, blobs), blobs);
  assert.notEqual(first.recomputed, null, `${first.status}: ${first.reason}`);
  return gemmRecord(recipe, blobs, first.recomputed!);
}

Deno.test("a GEMM record whose recipe is named after a bundled recipe it is not FAILs, though the fingerprint is its body's", async () => {
  const cases: [string, string][] = [
    ["cutlass-kwalk-128x128x64", "cublas-serial-split-k2"], // the reviewer's record
    ["cublas-serial-split-k2", "cublas-serial-split-k3"], // one parameter apart
    ["cublas-single-walk", "cutlass-kwalk-128x128x64"], // the same sums, another kernel named
  ];
  for (const [body, name] of cases) {
    const blobs: Blobs = new Map();
    // The body under no name computes this fingerprint, and PASSes.
    const plain = await honest(renamed(body, undefined), blobs);
    assert.equal((await verify(plain, blobs)).status, "PASS");
    const fp = plain.fingerprint.sha256;
    const r = await verify(gemmRecord(renamed(body, name), blobs, fp), blobs);
    assert.equal(r.status, "FAIL", `${body} named ${name}: ${r.reason}`);
    assert.match(
      r.reason,
      new RegExp(
        `^the record's GEMM recipe contradicts its name: it is named '${name}', the bundled recipe \\{"family":"${
          BUNDLED.get(name)!.family
        }".*\\}, but describes \\{"family":"${BUNDLED.get(body)!.family}"`,
      ),
    );
    assert.ok(!r.reason.includes("\n"), "one line");
    assert.equal(r.recomputed, null, "stopped before anything was recomputed");
  }
});

Deno.test("a GEMM record with a bundled recipe under its own name, or a body under a name no bundled recipe has, PASSes when honest; the kernel step shows the body recomputed", async () => {
  const kwalk = BUNDLED.get("cutlass-kwalk-128x128x64")!;
  const { schema: _schema, ...noSchema } = kwalk;
  const reordered = Object.fromEntries(Object.entries(noSchema).reverse());
  const recipes: Record<string, unknown>[] = [
    ...BUNDLED.values(),
    reordered, // the same body, its fields in another order and without `schema`
    renamed("cutlass-kwalk-128x128x64", "my-cutlass-kwalk"),
  ];
  for (const recipe of recipes) {
    const blobs: Blobs = new Map();
    const r = await verify(await honest(recipe, blobs), blobs);
    assert.equal(r.status, "PASS", `${recipe.name}: ${r.reason}`);
    const kernel = r.steps.find((s) => s.step === "kernel")!;
    // "<family> <the parsed body>": the recipe by what was recomputed, never by its name.
    assert.ok(!kernel.detail.includes(String(recipe.name)), kernel.detail);
    const at = kernel.detail.indexOf(" ");
    assert.equal(kernel.detail.slice(0, at), recipe.family);
    assert.equal(JSON.parse(kernel.detail.slice(at + 1)).family, recipe.family);
  }
});
