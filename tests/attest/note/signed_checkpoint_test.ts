import assert from "node:assert/strict";
import {
  checkpointBinding,
  formatSignedNote,
  MAX_COSIGNATURE_TIME,
  NOTE_COSIGNATURE_ED25519,
  noteKeyId,
  parseSignedNote,
  parseVerifierKey,
  signCheckpoint,
  verifyCheckpoint,
  verifyNote,
} from "../../../src/attest/note/mod.ts";
import { generateKeyPair } from "../../../src/attest/generate_key_pair.ts";
import { sign } from "../../../src/attest/mod.ts";
import { merkleRoot, parseCheckpoint } from "../../../src/claims/mod.ts";
import { formatVerifierKey, NOTE_ED25519, noteVerifierKey } from "../../../src/attest/note/mod.ts";

const prover = await generateKeyPair();
const other = await generateKeyPair();
const cp = {
  origin: "bitaudit.example/prover-1/log",
  treeSize: 3,
  rootHash: merkleRoot([1, 2, 3].map((b) => new Uint8Array(32).fill(b))),
  extensions: [],
};
const note = await signCheckpoint(cp, { privateKey: prover.privateKey, time: 1692803000 });

Deno.test("signCheckpoint() output verifies with the prover key and gives the signing time", async () => {
  const v = await verifyCheckpoint(note, [other.publicKey, prover.publicKey]);
  assert.equal(v.verified, true);
  assert.equal(v.signedAt, 1692803000);
  assert.deepEqual(v.publicKey, prover.publicKey);
  assert.deepEqual(v.checkpoint.rootHash, cp.rootHash);
  assert.equal(v.checkpoint.treeSize, 3);
});

Deno.test("signCheckpoint() output is a note Go's verifier semantics accept with a plain vkey", async () => {
  // A type-0x01 vkey named after the origin, as golang.org/x/mod/sumdb/note would be given: the
  // type-0x04 cosignature line has another key ID and is ignored.
  const vkey = formatVerifierKey(
    noteVerifierKey(cp.origin, { type: NOTE_ED25519, publicKey: prover.publicKey }),
  );
  const v = await verifyNote(parseSignedNote(note), [parseVerifierKey(vkey)]);
  assert.equal(v.verified, true);
  assert.equal(v.verifiedBy.length, 1);
  assert.deepEqual(parseCheckpoint(parseSignedNote(note).text).rootHash, cp.rootHash);
});

Deno.test("verifyCheckpoint() rejects another key, a changed root or size, and a changed time", async () => {
  assert.equal((await verifyCheckpoint(note, [other.publicKey])).reason, "no-known-signature");
  const lines = note.split("\n");
  const changedSize = [lines[0], "4", ...lines.slice(2)].join("\n");
  assert.equal((await verifyCheckpoint(changedSize, [prover.publicKey])).reason, "bad-signature");
  const root = lines[2] as string;
  const flipped = (root[0] === "A" ? "B" : "A") + root.slice(1);
  const changedRoot = [lines[0], lines[1], flipped, ...lines.slice(3)].join("\n");
  assert.equal((await verifyCheckpoint(changedRoot, [prover.publicKey])).reason, "bad-signature");
  // Re-signing with another time gives another cosignature; splicing it in keeps the rest valid,
  // while editing the timestamp bytes of the original breaks it.
  const later = await signCheckpoint(cp, { privateKey: prover.privateKey, time: 1692803999 });
  const laterCo = later.split("\n")[5] as string;
  const spliced = [...lines.slice(0, 5), laterCo, ""].join("\n");
  assert.equal((await verifyCheckpoint(spliced, [prover.publicKey])).signedAt, 1692803999);
  const co = lines[5] as string;
  const sig = co.slice(co.lastIndexOf(" ") + 1);
  const bytes = Uint8Array.from(atob(sig), (c) => c.charCodeAt(0));
  bytes[11] = (bytes[11] as number) ^ 1; // lowest timestamp byte (after the 4-byte key ID)
  const edited = [...lines.slice(0, 5), co.replace(sig, btoa(String.fromCharCode(...bytes))), ""]
    .join("\n");
  assert.equal((await verifyCheckpoint(edited, [prover.publicKey])).reason, "bad-signature");
});

/** `note` with its cosignature replaced by one stating `t` (made by hand: signing refuses it). */
async function cosignedAt(t: number): Promise<string> {
  const signed = parseSignedNote(note);
  const sig = await sign(
    new TextEncoder().encode(`cosignature/v1\ntime ${t}\n${signed.text}`),
    prover.privateKey,
  );
  const co = new Uint8Array(72);
  new DataView(co.buffer).setBigUint64(0, BigInt(t));
  co.set(sig, 8);
  const keyId = noteKeyId(cp.origin, {
    type: NOTE_COSIGNATURE_ED25519,
    publicKey: prover.publicKey,
  });
  return formatSignedNote({
    text: signed.text,
    signatures: [signed.signatures[0]!, { name: cp.origin, keyId, signature: co }],
  });
}

Deno.test("verifyCheckpoint() refuses a cosignature time after 9999-12-31T23:59:59Z, one an RFC 3339 time cannot write", async () => {
  assert.equal(MAX_COSIGNATURE_TIME, Date.parse("9999-12-31T23:59:59Z") / 1000);
  const last = await verifyCheckpoint(await cosignedAt(MAX_COSIGNATURE_TIME), [prover.publicKey]);
  assert.equal(last.signedAt, MAX_COSIGNATURE_TIME);
  assert.equal(checkpointBinding(note, last).signedAt, "9999-12-31T23:59:59Z");
  for (const t of [MAX_COSIGNATURE_TIME + 1, Number.MAX_SAFE_INTEGER]) {
    const v = await verifyCheckpoint(await cosignedAt(t), [prover.publicKey]);
    assert.equal(v.verified, false, String(t));
    assert.equal(v.reason, "bad-timestamp");
    assert.equal(v.signedAt, undefined);
  }
  await assert.rejects(
    () => signCheckpoint(cp, { privateKey: prover.privateKey, time: MAX_COSIGNATURE_TIME + 1 }),
    RangeError,
  );
});
