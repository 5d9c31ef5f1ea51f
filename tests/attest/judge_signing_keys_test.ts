/**
 * `judgeSigningKeys` runs `check`'s signatures rule on the keys about to sign a verdict (review
 * h184: `audit merge --trust-root` signed with a revoked `--key` a verdict `check` called INVALID,
 * "0 valid inspector signature(s)"). Its answer is `check`'s, on the signed envelope, at the same
 * verification time.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  buildTrustRoot,
  checkAttestation,
  generateKeyPair,
  judgeSigningKeys,
  keyId,
  parseTrustRoot,
  signVerdict,
} from "../../mod.ts";
import { verdictReport } from "./_verdict_report.ts";

const inspector = await generateKeyPair();
const coSigner = await generateKeyPair();
const TIME = "2026-03-01T12:00:00Z";
const NOW = new Date("2026-06-01T00:00:00Z");

/** A root of both keys as inspector keys, the first one's entry edited (null: left out). */
function root(edit: Record<string, unknown> | null) {
  const built = buildTrustRoot([inspector.publicKey, coSigner.publicKey], {
    start: "2026-01-01T00:00:00Z",
  });
  const id = keyId(inspector.publicKey);
  built.keys = built.keys.flatMap((k) =>
    k.keyid !== id ? [k] : edit === null ? [] : [{ ...k, ...edit }]
  );
  return parseTrustRoot(JSON.stringify(built));
}

const EDITS: [string, Record<string, unknown> | null][] = [
  ["valid", {}],
  ["not in the root", null],
  ["revoked before the time", { revoked: { time: "2026-02-01T00:00:00Z", reason: "lost" } }],
  ["revoked after the time, before now", {
    revoked: { time: "2026-04-01T00:00:00Z", reason: "x" },
  }],
  ["expired before now", {
    validFor: { start: "2026-01-01T00:00:00Z", end: "2026-04-01T00:00:00Z" },
  }],
  ["not yet valid at the time", { validFor: { start: "2026-04-01T00:00:00Z" } }],
];

/** The edits at the verification time NOW, and at a clock two minutes before the stated time. */
const SOON = new Date("2026-03-01T11:58:00Z");
const CASES: [string, Record<string, unknown> | null, Date][] = [
  ...EDITS.map(([what, edit]): [string, Record<string, unknown> | null, Date] => [what, edit, NOW]),
  ["valid, the clock just before the time", {}, SOON],
  [
    "starting between the clock and the time",
    { validFor: { start: "2026-03-01T11:59:00Z" } },
    SOON,
  ],
];

Deno.test("judgeSigningKeys() refuses exactly what check's signatures check fails on the signed verdict, at the same verification time", async () => {
  for (const [what, edit, now] of CASES) {
    const trustRoot = root(edit);
    const judged = judgeSigningKeys([inspector.publicKey], { trustRoot, time: TIME, now });
    const signed = await signVerdict(verdictReport(), {
      keys: [inspector],
      time: TIME,
      store: { manifestSha256: "66".repeat(32), used: () => ({}) },
      engine: "reference",
      runtime: "deno test",
    });
    const report = await checkAttestation(signed.envelope, { trustRoot, now });
    const sigs = report.checks.find((c) => c.check === "signatures")!;
    assert.equal(judged.refusal === null, sigs.ok, `${what}: ${judged.refusal} / ${sigs.detail}`);
    assert.deepEqual(judged.counted, sigs.ok ? [keyId(inspector.publicKey)] : [], what);
  }
});

Deno.test("judgeSigningKeys() judges a key at the stated time and at the signer's clock, names each key not counted, and counts to check's threshold", () => {
  const key = keyId(inspector.publicKey).slice(0, 16);
  const at = (edit: Record<string, unknown> | null, now = NOW) =>
    judgeSigningKeys([inspector.publicKey], { trustRoot: root(edit), time: TIME, now }).refusal;
  assert.equal(
    at({ revoked: { time: "2026-04-01T00:00:00Z", reason: "x" } }),
    `0 valid inspector signature(s) of the 1 required: key ${key}… is revoked: x at the ` +
      "verification time 2026-06-01T00:00:00.000Z",
  );
  // A stated time ahead of the signer's clock, within check's skew, is judged at both: a key whose
  // window starts between them fails every check made before its start (review h187).
  const before = new Date("2026-03-01T11:58:00Z");
  assert.equal(at({}, before), null);
  assert.equal(
    at({ validFor: { start: "2026-03-01T11:59:00Z" } }, before),
    `0 valid inspector signature(s) of the 1 required: key ${key}… is not yet valid at the ` +
      "verification time 2026-03-01T11:58:00.000Z",
  );
  // Further ahead than the skew, check refuses the time itself, and so does the judgement.
  assert.equal(
    at({}, new Date("2026-02-01T00:00:00Z")),
    "0 valid inspector signature(s) of the 1 required: the stated time 2026-03-01T12:00:00.000Z " +
      "is after the verification time 2026-02-01T00:00:00.000Z",
  );
  const both = [inspector.publicKey, coSigner.publicKey];
  const o = { trustRoot: root(null), time: TIME, now: NOW };
  assert.deepEqual(judgeSigningKeys(both, o).counted, [keyId(coSigner.publicKey)]);
  assert.equal(judgeSigningKeys(both, o).refusal, null);
  assert.equal(
    judgeSigningKeys(both, { ...o, threshold: 2 }).refusal,
    `1 valid inspector signature(s) of the 2 required: key ${key}… is not in the trust root`,
  );
});
