import assert from "node:assert/strict";
import { pae } from "../../src/attest/pae.ts";

const enc = new TextEncoder();

Deno.test("pae() matches the DSSE protocol.md test vector when type and body are ASCII", () => {
  const out = pae("http://example.com/HelloWorld", enc.encode("hello world"));
  assert.equal(
    new TextDecoder().decode(out),
    "DSSEv1 29 http://example.com/HelloWorld 11 hello world",
  );
});

Deno.test("pae() counts bytes, not characters, when the type is not ASCII", () => {
  const out = pae("é", new Uint8Array([0, 255]));
  assert.deepEqual(out, Uint8Array.of(...enc.encode("DSSEv1 2 é 2 "), 0, 255));
});

Deno.test("pae() encodes empty type and body with zero lengths", () => {
  assert.equal(new TextDecoder().decode(pae("", new Uint8Array(0))), "DSSEv1 0  0 ");
});

Deno.test("pae() throws TypeError when the payload is a string", () => {
  assert.throws(() => pae("t", "x" as unknown as Uint8Array), TypeError);
  assert.throws(() => pae("\ud800", new Uint8Array(0)), TypeError);
});
