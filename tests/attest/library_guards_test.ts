/**
 * The library's own guards, for tooling that calls it instead of the CLI: `checkAttestation`
 * refuses a threshold below one (every statement was VALID at 0) and `recompute` without a log
 * (nothing was recomputed and no check said so); `signVerdict` signs nothing a checker refuses (a
 * PASSED verdict over a FAIL, a drand round that does not verify); `drandBinding` binds only a
 * round that verifies; size bounds given as NaN are refused rather than read as "no bound"; and a
 * verdict that does not follow from its results is said so.
 */
import assert from "node:assert/strict";
import {
  buildTrustRoot,
  checkAttestation,
  encodeStatement,
  generateKeyPair,
  IN_TOTO_PAYLOAD_TYPE,
  InputError,
  parseEnvelope,
  parseTrustRoot,
  signEnvelope,
  signVerdict,
  type Statement,
  verdictStatement,
  verifyEnvelope,
} from "../../mod.ts";
import { drandBinding, parseDrandChainInfo, parseDrandRound } from "../../src/attest/beacon/mod.ts";
import { isCode } from "../_assert_code.ts";
import { cherryPickedReport, verdictReport } from "./_verdict_report.ts";

const key = await generateKeyPair();
const trustRoot = parseTrustRoot(
  JSON.stringify(buildTrustRoot([key.publicKey], { start: "2020-01-01T00:00:00Z" })),
);
const store = { manifestSha256: "66".repeat(32), used: () => ({}) };
const signing = { keys: [key], time: "2026-03-01T12:00:00Z", store, engine: "reference" };
const honest = await signVerdict(verdictReport(), signing);
const now = new Date("2026-03-02T00:00:00Z");

const ROOT = new URL("../../", import.meta.url);
const info = parseDrandChainInfo(
  await Deno.readTextFile(new URL("demo/drand/quicknet-info.json", ROOT)),
);
const realRound = JSON.parse(
  await Deno.readTextFile(new URL("demo/drand/quicknet-round-123.json", ROOT)),
);

Deno.test("checkAttestation() refuses a threshold below one: a stranger's signature was VALID at 0", async () => {
  const stranger = await generateKeyPair();
  const forged = await signEnvelope(encodeStatement(honest.statement as Statement), {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    keys: [stranger],
  });
  assert.equal((await checkAttestation(forged, { trustRoot, now })).valid, false);
  for (const threshold of [0, -1, 1.5, Number.NaN]) {
    await assert.rejects(
      checkAttestation(forged, { trustRoot, threshold, now }),
      (e) =>
        e instanceof RangeError && /threshold .* is not an integer >= 1/.test((e as Error).message),
    );
  }
  assert.equal(
    (await checkAttestation(honest.envelope, { trustRoot, threshold: 1, now })).valid,
    true,
  );
});

Deno.test("checkAttestation() refuses recompute without the claim log (it recomputed nothing, silently)", async () => {
  let calls = 0;
  await assert.rejects(
    checkAttestation(honest.envelope, {
      trustRoot,
      now,
      recompute: () => {
        calls++;
        return Promise.reject(new Error("unreachable"));
      },
    }),
    (e) => e instanceof RangeError && /recompute needs the claim log/.test((e as Error).message),
  );
  assert.equal(calls, 0);
});

Deno.test("signVerdict() refuses a report whose verdict does not follow from its results", async () => {
  const report = verdictReport();
  assert.equal(report.verdict, "FAILED");
  await assert.rejects(
    signVerdict({ ...report, verdict: "PASSED" }, signing),
    (e) =>
      isCode(InputError, "VERDICT_FIELD_VALUE")(e) &&
      /verdict: PASSED does not follow from the results \(they give FAILED\)/.test(
        (e as Error).message,
      ),
  );
  // Results out of the sampled order, or a sample that is not the seed's, are refused too.
  await assert.rejects(
    signVerdict({ ...report, results: [...report.results].reverse() }, signing),
    (e) => isCode(InputError, "VERDICT_FIELD_VALUE")(e) && /results:/.test((e as Error).message),
  );
  // A sample hand-picked for its PASS records, every other field consistent with it.
  await assert.rejects(
    signVerdict(cherryPickedReport(), signing),
    (e) => isCode(InputError, "VERDICT_FIELD_VALUE")(e) && /sample:/.test((e as Error).message),
  );
});

Deno.test("checkAttestation() says a signed verdict that does not follow from the results does not", async () => {
  const statement = verdictStatement(
    { ...verdictReport(), verdict: "PASSED" },
    {
      verifier: { version: "0.1.0", engine: "reference", runtime: "deno test" },
      assets: { "tables/manifest.json": "66".repeat(32) },
      timeVerified: "2026-03-01T12:00:00Z",
    },
  );
  const env = await signEnvelope(encodeStatement(statement as Statement), {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    keys: [key],
  });
  const r = await checkAttestation(env, { trustRoot, now });
  const verdict = r.checks.find((c) => c.check === "verdict")!;
  assert.equal(verdict.ok, false);
  assert.equal(verdict.detail, "PASSED does not follow from the results (they give FAILED)");
});

Deno.test("drandBinding() and signVerdict() refuse a drand round whose signature does not verify", async () => {
  const wrong = parseDrandRound(JSON.stringify({ ...realRound, round: 7 }));
  assert.throws(
    () => drandBinding(info, wrong),
    (e) => isCode(InputError, "BEACON_INVALID")(e) && /does not verify/.test((e as Error).message),
  );
  // A binding built by hand from the genuine one, moved to another round.
  const genuine = drandBinding(info, parseDrandRound(JSON.stringify(realRound)));
  const handMade = { ...genuine, round: 7 };
  await assert.rejects(
    signVerdict(verdictReport(), { ...signing, trust: { drand: handMade } }),
    (e) => isCode(InputError, "BEACON_INVALID")(e) && /does not verify/.test((e as Error).message),
  );
});

Deno.test("size bounds given as NaN or negative are refused, not read as no bound", async () => {
  for (const maxBytes of [Number.NaN, -1, 1.5]) {
    assert.throws(() => parseEnvelope(honest.text, { maxBytes }), RangeError);
  }
  for (const maxHashBytes of [Number.NaN, -1]) {
    await assert.rejects(
      verifyEnvelope(honest.envelope, { trustedKeys: [key.publicKey], maxHashBytes }),
      RangeError,
    );
  }
  assert.equal(
    parseEnvelope(honest.text, { maxBytes: honest.text.length }).payload.length > 0,
    true,
  );
});
