/**
 * Signed notes against independent vectors:
 * - c2sp.org/signed-note "Example" (github.com/C2SP/C2SP `signed-note.md`, commit 5ba5ee83): the
 *   verifier key `example.com/foo+530d903a+...` and the note it verifies.
 * - Go's golang.org/x/mod/sumdb/note tests (github.com/golang/mod `sumdb/note/note_test.go`,
 *   commit fe2ec04f): `TestSign` (PeterNeumann private key and the exact signed output),
 *   `TestOpen` (PeterNeumann and EnochRoot signatures, the vkeys), `TestNewVerifier` manglings.
 */
import assert from "node:assert/strict";
import {
  formatSignedNote,
  formatVerifierKey,
  parseSignedNote,
  parseVerifierKey,
  signNoteEd25519,
  verifyNote,
} from "../../../src/attest/note/mod.ts";
import { decodeBase64 } from "../../../src/attest/base64.ts";
import { publicKeyFromPrivate } from "../../../src/attest/generate_key_pair.ts";
import { InputError } from "../../../src/errors.ts";

const C2SP_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k";
const C2SP_NOTE = "This is an example message.\n\n\u2014 example.com/foo " +
  "Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n";

const PETER_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const PETER_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const ENOCH_VKEY = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop";
const TEXT = "If you think cryptography is the answer to your problem,\n" +
  "then you don't know what your problem is.\n";
const PETER_SIG =
  "\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
const ENOCH_SIG =
  "\u2014 EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n";

/** Go's private-key text: PRIVATE+KEY+<name>+<id>+base64(0x01 || 32-byte seed). */
const goPrivateKey = (skey: string) => {
  const [, , name, , ...rest] = skey.split("+") as string[];
  const raw = decodeBase64(rest.join("+"));
  assert.equal(raw[0], 0x01);
  return { name: name as string, privateKey: raw.slice(1) };
};

Deno.test("verifyNote() accepts the C2SP signed-note example with its verifier key", async () => {
  const key = parseVerifierKey(C2SP_VKEY);
  assert.equal(key.keyId, 0x530d903a);
  assert.equal(formatVerifierKey(key), C2SP_VKEY);
  const v = await verifyNote(parseSignedNote(C2SP_NOTE), [key]);
  assert.equal(v.verified, true);
  const tampered = C2SP_NOTE.replace("example message", "example massage");
  assert.equal((await verifyNote(parseSignedNote(tampered), [key])).reason, "bad-signature");
});

Deno.test("signNoteEd25519() reproduces Go's TestSign output byte for byte", async () => {
  const signer = goPrivateKey(PETER_SKEY);
  const vkey = parseVerifierKey(PETER_VKEY);
  assert.deepEqual(await publicKeyFromPrivate(signer.privateKey), vkey.publicKey);
  const sig = await signNoteEd25519(TEXT, signer);
  assert.equal(sig.keyId, 0xc74f20a3);
  assert.equal(formatSignedNote({ text: TEXT, signatures: [sig] }), `${TEXT}\n${PETER_SIG}`);
});

Deno.test("verifyNote() follows Go's TestOpen: unknown keys ignored, every known key checked", async () => {
  const peter = parseVerifierKey(PETER_VKEY);
  const enoch = parseVerifierKey(ENOCH_VKEY);
  const note = parseSignedNote(`${TEXT}\n${PETER_SIG}${ENOCH_SIG}`);
  assert.equal(note.text, TEXT);
  const one = await verifyNote(note, [peter]);
  assert.equal(one.verified, true);
  assert.deepEqual(one.verifiedBy.map((s) => s.key.name), ["PeterNeumann"]);
  const both = await verifyNote(note, [peter, enoch]);
  assert.deepEqual(both.verifiedBy.map((s) => s.key.name), ["PeterNeumann", "EnochRoot"]);
  assert.equal(
    (await verifyNote(parseSignedNote(`${TEXT}\n${ENOCH_SIG}`), [peter])).reason,
    "no-known-signature",
  );
  // Same name and ID as Peter's key but another signature: a known key that fails rejects the note.
  const forged = PETER_SIG.replace("x08go/ZJ", "x08go/ZK");
  assert.equal(
    (await verifyNote(parseSignedNote(`${TEXT}\n${forged}${ENOCH_SIG}`), [peter, enoch])).reason,
    "bad-signature",
  );
});

Deno.test("parseVerifierKey() refuses Go's TestNewVerifier manglings", () => {
  const bad = (k: string) =>
    assert.throws(
      () => parseVerifierKey(k),
      (e: unknown) => e instanceof InputError && e.code === "BAD_NOTE_KEY",
    );
  for (let i = 0; i < PETER_VKEY.length; i++) {
    const c = PETER_VKEY.charCodeAt(i);
    const mangled = PETER_VKEY.slice(0, i) + String.fromCharCode(c + 1) + PETER_VKEY.slice(i + 1);
    // Incrementing a base64 character can keep a valid key only if the key ID still matches.
    bad(mangled);
  }
  for (let cut = 1; cut < PETER_VKEY.length; cut++) bad(PETER_VKEY.slice(0, cut));
  bad("PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==");
  bad("PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW");
});

Deno.test("parseSignedNote() throws BAD_NOTE on malformed notes", () => {
  const bad = (t: string) =>
    assert.throws(
      () => parseSignedNote(t),
      (e: unknown) => e instanceof InputError && e.code === "BAD_NOTE",
    );
  bad(TEXT); // no signature block
  bad(`${TEXT}\n${PETER_SIG}`.slice(0, -1)); // no final newline
  bad(`${TEXT}\n- PeterNeumann AAAAAQA=\n`); // hyphen instead of em dash
  bad(`${TEXT}\n\u2014 PeterNeumann AAAA\n`); // signature shorter than a key ID + 1 byte
  bad(`${TEXT}\n\u2014 Peter Neumann AAAAAQA=\n`);
  bad(`a\tb\n\n${PETER_SIG}`);
  bad(`${TEXT}\n${PETER_SIG.repeat(65)}`);
  bad("x".repeat(70_000) + `\n\n${PETER_SIG}`);
});
