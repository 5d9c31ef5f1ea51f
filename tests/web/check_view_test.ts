import assert from "node:assert/strict";
import {
  buildTrustRoot,
  checkAttestation,
  encodeStatement,
  generateKeyPair,
  IN_TOTO_PAYLOAD_TYPE,
  parseEnvelope,
  parseTrustRoot,
  signEnvelope,
  type Statement,
  verdictStatement,
} from "../../mod.ts";
import { checkView, runCheck, trustSentences, verdictMeaning } from "../../src/web/mod.ts";
import { verdictReport } from "../attest/_verdict_report.ts";

const key = await generateKeyPair();
const trustRootText = JSON.stringify(
  buildTrustRoot([key.publicKey], { start: "2026-01-01T00:00:00Z" }),
);
const report = verdictReport();

async function attestation(logId = "log-t"): Promise<string> {
  const statement = verdictStatement({ ...report, logId }, {
    verifier: { version: "0.1.0", engine: "reference", runtime: "deno" },
    assets: { "tables/manifest.json": "66".repeat(32) },
    timeVerified: "2026-03-01T12:00:00Z",
  });
  const env = await signEnvelope(encodeStatement(statement as Statement), {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    keys: [key],
  });
  return JSON.stringify(env);
}

Deno.test("runCheck() reports exactly the checks checkAttestation() reports for the same files", async () => {
  const text = await attestation();
  const now = new Date("2026-03-02T00:00:00Z");
  const outcome = await runCheck({ attestation: text, trustRoot: trustRootText }, { now });
  const direct = await checkAttestation(parseEnvelope(text), {
    trustRoot: parseTrustRoot(trustRootText),
    now,
  });
  assert.equal(outcome.kind, "checked");
  if (outcome.kind !== "checked") return;
  assert.deepEqual(outcome.report, direct);
  assert.equal(outcome.predicate?.verdict, report.verdict);
});

Deno.test("checkView() puts the verdict and its meaning first for a valid attestation", async () => {
  const v = checkView(
    await runCheck({ attestation: await attestation(), trustRoot: trustRootText }),
  );
  assert.equal(v.tone, "valid");
  assert.equal(v.headline, `VALID attestation: verdict ${report.verdict}`);
  assert.match(v.summary[1]!, new RegExp(`^Verdict ${report.verdict}: 1 of the 8 sampled`));
  assert.match(v.summary.join(" "), /Sampled 8 of the 8 records of claim log "log-t"/);
  assert.deepEqual(v.kinds, [{ kind: "unknown", PASS: 6, FAIL: 1, NOT_VERIFIED: 1 }]);
  const fail = v.results.find((r) => r.status === "FAIL")!;
  assert.equal(fail.firstDifference, "element 4: claimed 0x3f49, recomputed 0x3f4a");
  assert.ok(v.digests.some((d) => d.label === "log root" && d.value === "11".repeat(32)));
});

Deno.test("checkView() shows a payload changed after signing as INVALID without its contents", async () => {
  const env = JSON.parse(await attestation());
  const payload = atob(env.payload).replace('"verdict":"FAILED"', '"verdict":"PASSED"');
  assert.notEqual(payload, atob(env.payload));
  env.payload = btoa(payload);
  const v = checkView(
    await runCheck({ attestation: JSON.stringify(env), trustRoot: trustRootText }),
  );
  assert.equal(v.tone, "invalid");
  assert.equal(v.headline, "INVALID attestation");
  assert.deepEqual(v.checks.filter((c) => !c.ok).map((c) => c.check), ["signatures"]);
  assert.deepEqual([v.facts, v.results, v.digests], [[], [], []]);
});

Deno.test("checkView() names the input that cannot be read, with its code", async () => {
  const bad = checkView(await runCheck({ attestation: await attestation(), trustRoot: "{" }));
  assert.equal(bad.tone, "refused");
  assert.equal(bad.headline, "Cannot read the trust root");
  assert.match(bad.summary[0]!, /^\[BAD_TRUST_ROOT\] Cannot/);
  const log = await runCheck({ attestation: "{}", trustRoot: trustRootText, log: "" });
  assert.equal(log.kind === "refused" && log.input, "attestation");
});

Deno.test("checkView() carries markup in a signed field as plain text for the page to show", async () => {
  const id = '<img src=x onerror="alert(1)">\u001b[32mVALID';
  const v = checkView(
    await runCheck({ attestation: await attestation(id), trustRoot: trustRootText }),
  );
  assert.equal(v.tone, "valid");
  assert.equal(v.facts.find((f) => f.label === "Claim log")?.value, `${id} (8 records)`);
});

Deno.test("verdictMeaning() says what each verdict means with its counts", () => {
  const r = (status: string) => ({ status });
  assert.match(
    verdictMeaning({ verdict: "PASSED", results: [r("PASS"), r("PASS")] }),
    /^Verdict PASSED: each of the 2 sampled records was recomputed .* bit for bit\.$/,
  );
  assert.match(
    verdictMeaning({ verdict: "INCONCLUSIVE", results: [r("PASS"), r("NOT_VERIFIED")] }),
    /^Verdict INCONCLUSIVE: no sampled record failed, but 1 of the 2 could not be verified/,
  );
  assert.match(
    verdictMeaning({ verdict: "FAILED", results: [r("FAIL"), r("NOT_VERIFIED"), r("FAIL")] }),
    /^Verdict FAILED: 2 of the 3 sampled records did not match/,
  );
});

Deno.test("trustSentences() names a verified drand round, a signed checkpoint and an announcement", () => {
  const s = trustSentences({
    round: 123,
    drand: {
      chainHash: "52".repeat(32),
      scheme: "bls-unchained-g1-rfc9380",
      publicKey: "83".repeat(96),
      period: 3,
      genesisTime: 1692803367,
      groupHash: "f4".repeat(32),
      beaconId: "quicknet",
      round: 123,
      roundTime: "2023-08-23T15:15:33Z",
      signature: "ab".repeat(48),
    },
    checkpoint: {
      note: "n",
      origin: "example.com/log",
      treeSize: 300,
      rootHash: "11".repeat(32),
      signedAt: "2026-03-01T00:00:00Z",
      proverKeyId: "cd".repeat(32),
    },
    announcement: {},
  });
  assert.match(
    s[0]!,
    /^The randomness is drand "quicknet" round 123, published 2023-08-23T15:15:33Z/,
  );
  assert.match(s[1]!, /checkpoint "example\.com\/log", 300 records\) with key cdcdcdcdcdcdcdcd at/);
  assert.match(s[2]!, /announced and signed before the round \(at the inspector's stated time\)/);
  assert.match(trustSentences({ round: 9 })[1]!, /^No signed checkpoint/);
});
