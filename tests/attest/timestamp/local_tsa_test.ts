/**
 * The in-process TSA is a real RFC 3161 implementation: its responses verify with our checker and
 * with `openssl ts -verify` (subprocess), and every tampered,
 * misdirected or unpinned variant fails with a named reason.
 */
import assert from "node:assert/strict";
import { createLocalTsa, verifyTimestampToken } from "../../../src/attest/timestamp/mod.ts";
import { encodePem } from "../../../src/attest/mod.ts";

const FROM = Date.parse("2023-01-01T00:00:00Z");
const UNTIL = Date.parse("2030-01-01T00:00:00Z");
const AT = Date.parse("2023-08-23T15:15:10Z");
const tsa = await createLocalTsa({
  name: "bitaudit test local TSA",
  notBefore: FROM,
  notAfter: UNTIL,
});
const message = new TextEncoder().encode("the bytes of a signature");

Deno.test("createLocalTsa() stamps a message that verifyTimestampToken() accepts at the stated time", async () => {
  const token = await tsa.stamp(message, { time: AT + 999 });
  const r = await verifyTimestampToken(token, { message, anchors: [tsa.anchor] });
  assert.equal(r.verified, true, r.reason);
  assert.equal(r.time, AT);
});

Deno.test("createLocalTsa() tokens fail when tampered, for another message or from an unpinned TSA", async () => {
  const token = await tsa.stamp(message, { time: AT });
  const other = message.slice();
  other[0] = other[0]! ^ 1;
  const r1 = await verifyTimestampToken(token, { message: other, anchors: [tsa.anchor] });
  assert.match(r1.reason ?? "", /another message/);
  // The signature is the response's last field: flip its last byte.
  const badSig = token.slice();
  badSig[badSig.length - 1] = badSig[badSig.length - 1]! ^ 1;
  const r2 = await verifyTimestampToken(badSig, { message, anchors: [tsa.anchor] });
  assert.equal(r2.verified, false);
  assert.match(r2.reason ?? "", /does not verify/);
  // Move genTime by ten years ("2023..." -> "2033..."): the signed message digest no longer holds.
  const text = new TextDecoder("latin1").decode(token);
  const at = text.indexOf("20230823151510Z");
  assert.ok(at > 0);
  const badTime = token.slice();
  badTime[at + 2] = 0x33;
  const r3 = await verifyTimestampToken(badTime, { message, anchors: [tsa.anchor] });
  assert.equal(r3.verified, false);
  assert.equal(r3.time, Date.parse("2033-08-23T15:15:10Z"));
  assert.match(r3.reason ?? "", /does not verify/);
  const stranger = await createLocalTsa({ name: "another TSA", notBefore: FROM, notAfter: UNTIL });
  const r4 = await verifyTimestampToken(token, { message, anchors: [stranger.anchor] });
  assert.match(r4.reason ?? "", /does not verify/);
  const r5 = await verifyTimestampToken(token, { message, anchors: [] });
  assert.match(r5.reason ?? "", /does not verify/);
});

Deno.test("verifyTimestampToken() refuses a token whose declared lengths disagree with its bytes (the reader had accepted it)", async () => {
  const token = await tsa.stamp(message, { time: AT });
  assert.equal(
    (await verifyTimestampToken(token, { message, anchors: [tsa.anchor] })).verified,
    true,
  );
  // The outer SEQUENCE's long-form length (0x30 0x82 hi lo): its high byte cut, so it claims far
  // fewer bytes than follow; then a length one byte short, and one a byte long.
  assert.equal(token[0], 0x30);
  assert.equal(token[1], 0x82);
  const variants: Uint8Array[] = [];
  for (const edit of [(t: Uint8Array) => (t[2] = 0x02), (t: Uint8Array) => (t[3] = t[3]! - 1)]) {
    const t = token.slice();
    edit(t);
    variants.push(t);
  }
  variants.push(new Uint8Array([...token, 0]));
  for (const [i, t] of variants.entries()) {
    const r = await verifyTimestampToken(t, { message, anchors: [tsa.anchor] });
    assert.equal(r.verified, false, `variant ${i}`);
    assert.match(r.reason ?? "", /not one DER value/, `variant ${i}`);
  }
});

Deno.test("createLocalTsa() refuses to stamp outside its certificates' validity", async () => {
  await assert.rejects(() => tsa.stamp(message, { time: FROM - 1000 }), RangeError);
  await assert.rejects(() => tsa.stamp(message, { time: UNTIL + 1000 }), RangeError);
  await assert.rejects(
    () => createLocalTsa({ name: "empty", notBefore: UNTIL, notAfter: FROM }),
    RangeError,
  );
});

Deno.test({
  name:
    "createLocalTsa() responses verify with openssl ts -verify, and fail it for another message",
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "bitaudit-local-tsa-" });
    try {
      await Deno.writeTextFile(`${dir}/ca.pem`, encodePem("CERTIFICATE", tsa.anchor));
      await Deno.writeFile(`${dir}/m.bin`, message);
      await Deno.writeFile(`${dir}/other.bin`, message.slice(1));
      await Deno.writeFile(`${dir}/r.tsr`, await tsa.stamp(message, { time: AT }));
      const verify = async (data: string) => (await new Deno.Command("openssl", {
        args: ["ts", "-verify", "-in", "r.tsr", "-data", data, "-CAfile", "ca.pem"],
        cwd: dir,
        stdout: "piped",
        stderr: "piped",
      }).output());
      const ok = await verify("m.bin");
      const dec = new TextDecoder();
      assert.equal(ok.success, true, dec.decode(ok.stderr));
      assert.match(dec.decode(ok.stdout), /Verification: OK/);
      const bad = await verify("other.bin");
      assert.equal(bad.success, false);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
