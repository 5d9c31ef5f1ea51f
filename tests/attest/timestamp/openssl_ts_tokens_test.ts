/** RFC 3161 tokens produced by a real TSA implementation (`openssl ts`, run locally). */
import assert from "node:assert/strict";
import { verifyTimestampToken } from "../../../src/attest/timestamp/mod.ts";
import { localTsa } from "./_openssl_tsa.ts";

Deno.test({
  name: "verifyTimestampToken() accepts an openssl ts token and response over the message",
  fn: async () => {
    const tsa = await localTsa();
    const message = crypto.getRandomValues(new Uint8Array(64));
    const before = Date.now() - 2000;
    for (const response of [false, true]) {
      const r = await verifyTimestampToken(await tsa.stamp(message, { response }), {
        message,
        anchors: [tsa.caDer],
      });
      assert.equal(r.verified, true, r.reason);
      assert.ok(r.time! >= Math.floor(before / 1000) * 1000 && r.time! <= Date.now() + 2000);
    }
  },
});

Deno.test({
  name: "verifyTimestampToken() rejects another message, an expired TSA, another CA and garbage",
  fn: async () => {
    const tsa = await localTsa();
    const message = crypto.getRandomValues(new Uint8Array(64));
    const token = await tsa.stamp(message);
    const other = message.slice();
    other[0] = (other[0] as number) ^ 1;
    const forOther = await verifyTimestampToken(token, { message: other, anchors: [tsa.caDer] });
    assert.match(forOther.reason ?? "", /another message/);
    const expired = await verifyTimestampToken(await tsa.stamp(message, { expired: true }), {
      message,
      anchors: [tsa.caDer],
    });
    assert.equal(expired.verified, false);
    assert.match(expired.reason ?? "", /expired|not valid at the token.s time/, expired.reason);
    const stranger = await localTsa("another CA");
    const untrusted = await verifyTimestampToken(token, { message, anchors: [stranger.caDer] });
    assert.match(untrusted.reason ?? "", /does not verify/);
    const none = await verifyTimestampToken(token, { message, anchors: [] });
    assert.equal(none.verified, false);
    const cut = await verifyTimestampToken(token.slice(0, token.length - 1), {
      message,
      anchors: [tsa.caDer],
    });
    assert.match(cut.reason ?? "", /not a time-stamp token/);
    const flipped = token.slice();
    flipped[flipped.length - 10] = (flipped[flipped.length - 10] as number) ^ 1;
    const bad = await verifyTimestampToken(flipped, { message, anchors: [tsa.caDer] });
    assert.equal(bad.verified, false);
  },
});

Deno.test({
  name:
    "verifyTimestampToken() accepts an openssl ts token without certificates when its TSA certificate is pinned",
  fn: async () => {
    const tsa = await localTsa();
    const message = crypto.getRandomValues(new Uint8Array(64));
    for (const response of [false, true]) {
      const token = await tsa.stamp(message, { certReq: false, response });
      const pinned = await verifyTimestampToken(token, { message, anchors: [tsa.tsaDer] });
      assert.equal(pinned.verified, true, pinned.reason);
      // Its CA alone does not say which certificate signed: nothing verifies.
      const caOnly = await verifyTimestampToken(token, { message, anchors: [tsa.caDer] });
      assert.match(caOnly.reason ?? "", /signer certificate/);
    }
  },
});
