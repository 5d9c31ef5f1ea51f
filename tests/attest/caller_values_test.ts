/**
 * Values a caller of the library builds by hand instead of parsing them from a file: an envelope
 * object whose fields change between reads is read once (a getter made a key outside its window
 * count), an envelope of the wrong JSON types is an invalid attestation rather than a TypeError,
 * a trust root's key list is bounded before it is read, and each documented parser refuses a value
 * that is not text with its own code.
 */
import assert from "node:assert/strict";
import {
  buildTrustRoot,
  checkAttestation,
  decodeBase64,
  type DsseEnvelope,
  encodeBase64,
  generateKeyPair,
  InputError,
  parseAnnouncement,
  parseCheckpoint,
  parseSignedNote,
  parseTrustRoot,
  signVerdict,
  type Statement,
  verifyCheckpoint,
  verifyEnvelope,
} from "../../mod.ts";
import { parseDrandChainInfo, parseDrandRound } from "../../src/attest/beacon/mod.ts";
import { isCode } from "../_assert_code.ts";
import { verdictReport } from "./_verdict_report.ts";

const key = await generateKeyPair();
const store = { manifestSha256: "66".repeat(32), used: () => ({}) };
const signedAt = "2026-03-01T12:00:00Z";
const honest = await signVerdict(verdictReport(), {
  keys: [key],
  time: signedAt,
  store,
  engine: "reference",
});
const now = new Date("2026-03-02T00:00:00Z");
const rootFrom = (start: string) =>
  parseTrustRoot(JSON.stringify(buildTrustRoot([key.publicKey], { start })));
const trustRoot = rootFrom("2020-01-01T00:00:00Z");

/** The honest envelope, but `payload` answers `first` on its first read. */
function twoFaced(first: string): { envelope: DsseEnvelope; reads: () => number } {
  let reads = 0;
  const envelope = {
    payloadType: honest.envelope.payloadType,
    signatures: honest.envelope.signatures,
    get payload() {
      return reads++ === 0 ? first : honest.envelope.payload;
    },
  };
  return { envelope, reads: () => reads };
}

Deno.test("checkAttestation() reads the envelope once: a payload that states another signing time on its first read does not make a key outside its window count", async () => {
  // The key's window opens an hour after the signed timeVerified: the honest envelope is refused.
  const late = rootFrom("2026-03-01T13:00:00Z");
  const plain = await checkAttestation(honest.envelope, { trustRoot: late, now });
  assert.equal(plain.valid, false);
  const st = JSON.parse(new TextDecoder().decode(decodeBase64(honest.envelope.payload)));
  st.predicate.timeVerified = "2026-03-01T14:00:00Z";
  const forged = encodeBase64(new TextEncoder().encode(JSON.stringify(st)));
  const { envelope, reads } = twoFaced(forged);
  const r = await checkAttestation(envelope, { trustRoot: late, now });
  assert.equal(r.valid, false, JSON.stringify(r.checks));
  assert.equal(r.verdict, null);
  assert.equal(reads(), 1);
  // Read once, the forged statement is what the signatures are checked over: they do not verify.
  const sigs = r.checks.find((c) => c.check === "signatures");
  assert.equal(sigs?.ok, false);
  // The honest envelope under a trust root whose window holds the signed time stays valid.
  assert.equal(
    (await checkAttestation(twoFaced(honest.envelope.payload).envelope, {
      trustRoot,
      now,
    })).valid,
    true,
  );
});

Deno.test("verifyEnvelope() reports the payload type it verified, whatever a second read of the object says", async () => {
  let reads = 0;
  const envelope = {
    payload: honest.envelope.payload,
    signatures: honest.envelope.signatures,
    get payloadType() {
      return reads++ === 0 ? honest.envelope.payloadType : "application/other";
    },
  };
  const v = await verifyEnvelope(envelope, { trustedKeys: [key.publicKey] });
  assert.equal(v.verified, true);
  assert.equal(v.payloadType, honest.envelope.payloadType);
  assert.equal(reads, 1);
});

Deno.test("checkAttestation() and verifyEnvelope() take an envelope of the wrong JSON types as invalid (BAD_ENVELOPE), not a TypeError", async () => {
  const good = honest.envelope;
  const cases: [string, unknown][] = [
    ["null", null],
    ["a number", 5],
    ["an empty object", {}],
    ["payloadType 5", { ...good, payloadType: 5 }],
    ["payload 5", { ...good, payload: 5 }],
    ["signatures null", { ...good, signatures: null }],
    ["signatures an object", { ...good, signatures: {} }],
    ["a signature null", { ...good, signatures: [null] }],
    ["a signature without sig", { ...good, signatures: [{ keyid: "" }] }],
    ["keyid 5", { ...good, signatures: [{ ...good.signatures[0]!, keyid: 5 }] }],
    ["65 signatures", { ...good, signatures: Array(65).fill(good.signatures[0]) }],
  ];
  for (const [name, envelope] of cases) {
    const r = await checkAttestation(envelope as DsseEnvelope, { trustRoot, now });
    assert.equal(r.valid, false, name);
    assert.deepEqual(r.checks.map((c) => [c.check, c.ok]), [["envelope", false]], name);
    assert.match(r.checks[0]!.detail, /^Cannot read envelope: /, name);
    await assert.rejects(
      verifyEnvelope(envelope as DsseEnvelope, { trustedKeys: [key.publicKey] }),
      isCode(InputError, "BAD_ENVELOPE"),
      name,
    );
  }
  const holes = { ...good, signatures: [] as unknown[] };
  holes.signatures.length = 2;
  const r = await checkAttestation(holes as unknown as DsseEnvelope, { trustRoot, now });
  assert.equal(r.checks[0]?.check, "envelope");
});

Deno.test("checkAttestation() refuses a trust root of more than 64 keys, or with a hole in its list, before reading them (BAD_TRUST_ROOT)", async () => {
  const many = { ...trustRoot, keys: Array(65).fill(trustRoot.keys[0]) };
  const sparse = { ...trustRoot, keys: [...trustRoot.keys] };
  // A list built by hand can claim any length: 2^32 - 1 took minutes to filter.
  sparse.keys.length = 2 ** 20;
  const holed = { ...trustRoot, keys: [...trustRoot.keys] };
  holed.keys.length = 2;
  for (const root of [many, sparse, holed, null, { ...trustRoot, keys: "k" }]) {
    await assert.rejects(
      checkAttestation(honest.envelope, { trustRoot: root as typeof trustRoot, now }),
      isCode(InputError, "BAD_TRUST_ROOT"),
    );
  }
  const exact = { ...trustRoot, keys: Array(64).fill(trustRoot.keys[0]) };
  assert.equal((await checkAttestation(honest.envelope, { trustRoot: exact, now })).valid, true);
});

Deno.test("the documented parsers refuse a value that is not text with their own code, not a TypeError", async () => {
  const values: unknown[] = [null, undefined, 5, [], {}, new Uint8Array(4)];
  for (const v of values) {
    const text = v as string;
    assert.throws(() => parseTrustRoot(text), isCode(InputError, "BAD_TRUST_ROOT"));
    assert.throws(() => parseCheckpoint(text), isCode(InputError, "BAD_CHECKPOINT"));
    assert.throws(() => parseSignedNote(text), isCode(InputError, "BAD_NOTE"));
    assert.throws(() => parseDrandRound(text), isCode(InputError, "BAD_BEACON"));
    assert.throws(() => parseDrandChainInfo(text), isCode(InputError, "BAD_BEACON"));
    await assert.rejects(verifyCheckpoint(text, [key.publicKey]), isCode(InputError, "BAD_NOTE"));
  }
  for (const v of [null, undefined, 5, "statement"]) {
    assert.throws(
      () => parseAnnouncement(v as unknown as Statement),
      isCode(InputError, "BAD_ANNOUNCEMENT"),
    );
  }
});
