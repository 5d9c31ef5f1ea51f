/**
 * A verifier short of memory blames no prover: an allocation the machine cannot make, met while
 * a record is recomputed, goes up as the host's error (the CLI's `error [MEMORY]`, exit 4), never
 * a FAIL or NOT_VERIFIED of the record, whichever thread met it.
 */
import assert from "node:assert/strict";
import type { ClaimPredicate } from "../../src/claims/mod.ts";
import { EXIT, exitCodeOf } from "../../src/cli/exit_codes.ts";
import { HostResourceError, isHostResourceError } from "../../src/errors.ts";
import type { KWalker } from "../../src/kernels/mod.ts";
import { verifyRecord } from "../../src/verify/mod.ts";
import { engineWalker } from "../model/forward/_forward_fixture.ts";
import {
  attention,
  chainLog,
  forwardScenario,
  memoryStore,
  proverRun,
  store,
} from "./_recompute_fixture.ts";

const out = await proverRun(forwardScenario([], 1));
const forward = out.records.find((r) => r.predicate.workload.kind === "model_forward")!.predicate;

/** The engine's walker, failing from its `after`-th call on with `error`. */
function failingWalker(after: number, error: () => Error): KWalker {
  let calls = 0;
  return (dp, job) => ++calls > after ? Promise.reject(error()) : engineWalker(dp, job);
}

async function verifyWith(p: ClaimPredicate, walker: KWalker) {
  return await verifyRecord(
    { store, blobs: memoryStore(out.blobs), walker, attention },
    { log: chainLog([p]), index: 0 },
  );
}

Deno.test("an allocation failure in a model forward's recomputation is the host's error, not a FAIL", async () => {
  assert.equal((await verifyWith(forward, engineWalker)).status, "PASS");
  const failures = [
    () => new RangeError("Array buffer allocation failed"), // V8's, on this thread or a worker's
    () => new HostResourceError("Cannot create a pool arena: no growable SharedArrayBuffer"),
  ];
  for (const error of failures) {
    await assert.rejects(
      () => verifyWith(forward, failingWalker(3, error)),
      (e) => isHostResourceError(e),
    );
  }
  // A RangeError of the model code (a contradiction of the checkpoint) is still the record's.
  const r = await verifyWith(
    forward,
    failingWalker(3, () => new RangeError("Cannot run forward: 3 rows of a call of 2")),
  );
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(r.reason, /record contradicts its checkpoint/);
});

Deno.test("the host's MEMORY refusal has its own exit code", () => {
  assert.equal(exitCodeOf({ host: "MEMORY" }), EXIT.RESOURCES);
  assert.equal(EXIT.RESOURCES, 4);
  assert.ok(isHostResourceError(new RangeError("Array buffer allocation failed")));
  // A length no host gives is a bug or an input let through, never the machine's shortage.
  for (const why of ["Invalid typed array length: -1", "Invalid array length", "Cannot plan"]) {
    assert.ok(!isHostResourceError(new RangeError(why)), why);
  }
});
