import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeBase64, encodeBase64 } from "../../src/attest/base64.ts";
import { InputError } from "../../src/errors.ts";
import { isCode } from "../_assert_code.ts";

const enc = new TextEncoder();
const code = (f: () => unknown) => assert.throws(f, isCode(InputError, "BAD_BASE64"));

Deno.test("encodeBase64() matches the RFC 4648 §10 test vectors", () => {
  const cases = [["", ""], ["f", "Zg=="], ["fo", "Zm8="], ["foo", "Zm9v"], ["foob", "Zm9vYg=="], [
    "fooba",
    "Zm9vYmE=",
  ], ["foobar", "Zm9vYmFy"]];
  for (const [plain, b64] of cases) {
    assert.equal(encodeBase64(enc.encode(plain)), b64);
    assert.deepEqual(decodeBase64(b64 as string), enc.encode(plain));
  }
});

Deno.test("decodeBase64() accepts URL-safe text with or without padding when alphabet is any", () => {
  assert.deepEqual(decodeBase64("-_8"), Uint8Array.of(0xfb, 0xff));
  assert.deepEqual(decodeBase64("-_8="), Uint8Array.of(0xfb, 0xff));
  assert.deepEqual(decodeBase64("Zm8"), enc.encode("fo"));
  assert.deepEqual(decodeBase64("-_8", { alphabet: "url" }), Uint8Array.of(0xfb, 0xff));
});

Deno.test("decodeBase64() throws BAD_BASE64 when the text is not canonical", () => {
  code(() => decodeBase64("Zg="));
  code(() => decodeBase64("Zg==="));
  code(() => decodeBase64("Zh=="));
  code(() => decodeBase64("Z"));
  code(() => decodeBase64("Zm9v\n"));
  code(() => decodeBase64("Zm 9v"));
  code(() => decodeBase64("Zm9v*A=="));
  code(() => decodeBase64("+-=="));
  code(() => decodeBase64("Zg=A"));
  code(() => decodeBase64("Zm8", { alphabet: "standard" }));
  code(() => decodeBase64("+/8=", { alphabet: "url" }));
  code(() => decodeBase64("-_8=", { alphabet: "standard" }));
  code(() => decodeBase64(42 as unknown as string));
});

Deno.test("decodeBase64() inverts encodeBase64() and agrees with btoa for any bytes", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
      const b64 = encodeBase64(bytes);
      assert.equal(b64, btoa(String.fromCharCode(...bytes)));
      assert.deepEqual(decodeBase64(b64), bytes);
      const url = b64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
      assert.deepEqual(decodeBase64(url), bytes);
    }),
    { numRuns: 500, seed: 4648 },
  );
});
