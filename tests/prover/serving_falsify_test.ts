/**
 * The serving falsifications make records that are false (docs/prover.md, "Falsifications"):
 * `token_replaced` feeds back a generated token that is not the argmax, and `pass_shape` reports
 * a pass with other GEMM rows than it ran. A falsification naming the argmax itself, or the rows
 * the pass did run, would leave an honest record listed as falsified.
 */
import assert from "node:assert/strict";
import { openAssetStore } from "../../src/assets/mod.ts";
import { parseServingHistory, type SequenceWorkload } from "../../src/claims/mod.ts";
import { InputError } from "../../src/errors.ts";
import { flashAttentionForward } from "../../src/kernels/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import { assertRejectsCode } from "../_assert_code.ts";
import { ENGINE, engineWalker } from "../model/forward/_forward_fixture.ts";
import { assertVerdicts } from "../verify/_serving_fixture.ts";
import { servedScenario } from "./_served_fixture.ts";

const store = await openAssetStore();
const walker = engineWalker;
const attention: typeof flashAttentionForward = (i, o) =>
  flashAttentionForward(i, { ...o, kWalk: ENGINE.kWalkAuto });

/** The two served requests of `servedScenario()` (records 2 and 3), with `falsify`. */
function run(falsify: unknown[]): Promise<Awaited<ReturnType<typeof makeClaims>>> {
  const scenario = { ...(servedScenario() as Record<string, unknown>), falsify };
  return makeClaims(parseScenario(scenario), { store, walker, attention });
}

/** Record `seq`'s sequence workload. */
function workload(out: Awaited<ReturnType<typeof makeClaims>>, seq: number): SequenceWorkload {
  return out.records[seq]!.predicate.workload as SequenceWorkload;
}

const honest = await run([]);

Deno.test("token_replaced naming the argmax token itself still replaces it: the record's token differs from the honest run's and it FAILs", async () => {
  const greedy = workload(honest, 2).tokens.generated[0]!;
  const out = await run([{ seq: 2, kind: "token_replaced", step: 0, token: greedy }]);
  assert.notEqual(workload(out, 2).tokens.generated[0], greedy);
  assert.deepEqual(out.falsified, [{ seq: 2, kind: "token_replaced" }]);
  await assertVerdicts(out, { store, walker, attention });
});

Deno.test("pass_shape claiming the rows its pass did run is refused (SCENARIO_INVALID): the record would be honest", async () => {
  const w = workload(honest, 2);
  const passes = parseServingHistory(honest.blobs.get(w.history.sha256)!);
  const pass = passes.findIndex((p) => p.entries.length > 1);
  assert.ok(pass >= 0, "record 2 shares a pass with record 3");
  const rows = passes[pass]!.rows;
  await assertRejectsCode(
    () => run([{ seq: 2, kind: "pass_shape", pass, claimedRows: rows }]),
    InputError,
    "SCENARIO_INVALID",
  );
  // One row more is taken as a falsification of record 2.
  const out = await run([{ seq: 2, kind: "pass_shape", pass, claimedRows: rows + 1 }]);
  assert.deepEqual(out.falsified, [{ seq: 2, kind: "pass_shape" }]);
});
