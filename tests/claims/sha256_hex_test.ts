import assert from "node:assert/strict";
import { sha256Hex } from "../../src/sha256_hex.ts";

Deno.test("sha256Hex() gives the FIPS 180-4 digests when hashing '' and the 448-bit message", () => {
  const enc = new TextEncoder();
  assert.equal(
    sha256Hex(new Uint8Array(0)),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal(
    sha256Hex(enc.encode("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

Deno.test("sha256Hex() agrees with WebCrypto when hashing arbitrary lengths", async () => {
  for (const n of [1, 55, 56, 63, 64, 65, 1000]) {
    const b = new Uint8Array(n).map((_, i) => (i * 31 + n) & 0xff);
    const ref = new Uint8Array(await crypto.subtle.digest("SHA-256", b));
    assert.equal(sha256Hex(b), Array.from(ref, (x) => x.toString(16).padStart(2, "0")).join(""));
  }
});

Deno.test("sha256Hex() throws TypeError when given a string", () => {
  assert.throws(() => sha256Hex("abc" as unknown as Uint8Array), TypeError);
});
