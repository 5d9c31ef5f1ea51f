import assert from "node:assert/strict";
import {
  parseSignedNote,
  parseVerifierKey,
  signCheckpoint,
  verifyCheckpoint,
  verifyNote,
} from "../../../src/attest/note/mod.ts";
import { generateKeyPair } from "../../../src/attest/generate_key_pair.ts";
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
