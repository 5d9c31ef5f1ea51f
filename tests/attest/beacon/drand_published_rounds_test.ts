/**
 * drand rounds of the real League of Entropy chains, verified offline, and tampered variants.
 *
 * Sources (each value copied as published; see also demo/drand/README.md):
 * - quicknet chain info: github.com/drand/drand `common/chain/info_test.go` (`TestJsonFromRelay`).
 * - quicknet round 123: github.com/noislabs/drand-verify `src/verify.rs`
 *   (`https://api3.drand.sh/52db9ba7.../public/123`).
 * - default chain info and round 1: github.com/drand/drand-client `test/data.ts`
 *   (`validTestChainInfo`, `validTestBeacon`: "the first round of randomness emitted by the chain
 *   on mainnet").
 * - default rounds 72785 and 1337 (signature, randomness): github.com/noislabs/drand-verify
 *   `src/verify.rs` and `src/randomness.rs` (`https://drand.cloudflare.com/public/72785`, `/1337`).
 * - quicknet-t testnet key (a real key of another chain): github.com/drand/tlock-js
 *   `src/drand/defaults.ts` (`TESTNET_CHAIN_INFO`, `pedersen-bls-unchained`, key on G1).
 */
import assert from "node:assert/strict";
import {
  drandChainHash,
  type DrandChainInfo,
  type DrandRound,
  drandRoundTime,
  parseDrandChainInfo,
  parseDrandRound,
  verifyDrandRound,
} from "../../../src/attest/beacon/mod.ts";
import { InputError } from "../../../src/errors.ts";

const dir = new URL("../../../demo/drand/", import.meta.url);
const read = (name: string) => Deno.readTextFileSync(new URL(name, dir));
const quicknet = parseDrandChainInfo(read("quicknet-info.json"));
const quicknet123 = parseDrandRound(read("quicknet-round-123.json"));
const mainnet = parseDrandChainInfo(read("default-info.json"));
const mainnet72785 = parseDrandRound(read("default-round-72785.json"));
const mainnet1: DrandRound = {
  round: 1,
  randomness: "101297f1ca7dc44ef6088d94ad5fb7ba03455dc33d53ddb412bbc4564ed986ec",
  signature:
    "8d61d9100567de44682506aea1a7a6fa6e5491cd27a0a0ed349ef6910ac5ac20ff7bc3e09d7c046566c9f7f3c6f3b10104990e7cb424998203d8f7de586fb7fa5f60045417a432684f85093b06ca91c769f0e7ca19268375e659c2a2352b4655",
  previousSignature: "176f93498eac9ca337150b46d21dd58673ea4e3581185f869672e59fa4cb390a",
};
const TESTNET_G1_KEY =
  "8200fc249deb0148eb918d6e213980c5d01acd7fc251900d9260136da3b54836ce125172399ddc69c4e3e11429b62c11";

/** Flips the lowest bit of byte `i` of a hex string. */
const flip = (hex: string, i: number) =>
  hex.slice(0, 2 * i) +
  (parseInt(hex.slice(2 * i, 2 * i + 2), 16) ^ 1).toString(16).padStart(2, "0") +
  hex.slice(2 * i + 2);
/** A chain info with `change` applied and its hash made consistent again. */
const rehashed = (info: DrandChainInfo, change: Partial<DrandChainInfo>): DrandChainInfo => {
  const next = { ...info, ...change };
  return { ...next, hash: drandChainHash(next) };
};

Deno.test("drandChainHash() recomputes the published chain hashes of quicknet and default", () => {
  assert.equal(
    drandChainHash(quicknet),
    "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
  );
  assert.equal(
    drandChainHash(mainnet),
    "8990e7a9aaed2ffed73dbd7092123d6f289930540d7651336225dc172e51b2ce",
  );
});

Deno.test("verifyDrandRound() accepts quicknet round 123 (bls-unchained-g1-rfc9380)", () => {
  const r = verifyDrandRound(quicknet, quicknet123);
  assert.equal(r.verified, true, r.reason);
  assert.equal(r.roundTime, 1692803367 + 122 * 3);
  assert.equal(r.chainHash, quicknet.hash);
});

Deno.test("verifyDrandRound() accepts default-chain rounds 1 and 72785 (pedersen-bls-chained)", () => {
  for (const round of [mainnet1, mainnet72785]) {
    const r = verifyDrandRound(mainnet, round);
    assert.equal(r.verified, true, `${round.round}: ${r.reason}`);
    assert.equal(r.randomness, round.randomness);
  }
});

Deno.test("verifyDrandRound() derives the published randomness of round 1337 as SHA-256(signature)", () => {
  const r = verifyDrandRound(mainnet, {
    round: 1337,
    signature:
      "945b08dcb30e24da281ccf14a646f0630ceec515af5c5895e18cc1b19edd65d156b71c776a369af3487f1bc6af1062500b059e01095cc0eedce91713977d7735cac675554edfa0d0481bb991ed93d333d08286192c05bf6b65d20f23a37fc7bb",
  });
  assert.equal(r.randomness, "2660664f8d4bc401194d80d81da20a1e79480f65b8e2d205aecbd143b5bfb0d3");
  // No previous signature was given, so the chained signature cannot be checked.
  assert.equal(r.verified, false);
  assert.equal(r.reason, "missing-previous-signature");
});

Deno.test("verifyDrandRound() rejects a flipped signature byte on both schemes", () => {
  for (const i of [0, 20, 47]) {
    const q = verifyDrandRound(quicknet, {
      ...quicknet123,
      signature: flip(quicknet123.signature, i),
    });
    assert.equal(q.verified, false);
    assert.equal(q.reason, "signature-invalid");
  }
  const { randomness: _, ...noRandomness } = mainnet72785;
  const m = verifyDrandRound(mainnet, {
    ...noRandomness,
    signature: flip(mainnet72785.signature, 95),
  });
  assert.equal(m.verified, false);
  assert.equal(m.reason, "signature-invalid");
});

Deno.test("verifyDrandRound() rejects a wrong round number or previous signature", () => {
  assert.equal(
    verifyDrandRound(quicknet, { ...quicknet123, round: 124 }).reason,
    "signature-invalid",
  );
  assert.equal(
    verifyDrandRound(mainnet, { ...mainnet72785, round: 72786 }).reason,
    "signature-invalid",
  );
  const prev = flip(mainnet72785.previousSignature as string, 0);
  assert.equal(
    verifyDrandRound(mainnet, { ...mainnet72785, previousSignature: prev }).reason,
    "signature-invalid",
  );
  // Round 1's signature presented as round 72785's (a valid point, signed for another message).
  assert.equal(
    verifyDrandRound(mainnet, {
      ...mainnet72785,
      signature: mainnet1.signature,
      randomness: mainnet1.randomness as string,
    }).reason,
    "signature-invalid",
  );
});

Deno.test("verifyDrandRound() rejects a wrong chain key, stated or rehashed", () => {
  // Key swapped but the published hash kept: the chain info no longer hashes to it.
  const swapped = { ...mainnet, publicKey: TESTNET_G1_KEY };
  assert.equal(verifyDrandRound(swapped, mainnet72785).reason, "chain-hash-mismatch");
  // A self-consistent chain with another real key: the signature does not verify.
  assert.equal(
    verifyDrandRound(rehashed(mainnet, { publicKey: TESTNET_G1_KEY }), mainnet72785).reason,
    "signature-invalid",
  );
  // Genesis or period changed: another chain hash.
  assert.equal(
    verifyDrandRound({ ...quicknet, period: 30 }, quicknet123).reason,
    "chain-hash-mismatch",
  );
});

Deno.test("verifyDrandRound() rejects a wrong or unsupported scheme", () => {
  // The scheme is not hashed into the chain hash, so only the signature check can catch it.
  assert.equal(
    verifyDrandRound({ ...quicknet, schemeId: "pedersen-bls-chained" }, {
      ...quicknet123,
      previousSignature: "00",
    }).reason,
    "bad-public-key",
  );
  assert.equal(
    verifyDrandRound({ ...mainnet, schemeId: "bls-unchained-g1-rfc9380" }, mainnet72785).reason,
    "bad-public-key",
  );
  assert.equal(
    verifyDrandRound({ ...quicknet, schemeId: "bls-unchained-on-g1" }, quicknet123).reason,
    "unsupported-scheme",
  );
});

Deno.test("verifyDrandRound() rejects a stated randomness that is not SHA-256(signature)", () => {
  const r = verifyDrandRound(quicknet, { ...quicknet123, randomness: "00".repeat(32) });
  assert.equal(r.reason, "randomness-mismatch");
});

Deno.test("verifyDrandRound() rejects identity points for key and signature", () => {
  // Compressed infinity: flags 0b110 then zeros.
  const g1Inf = "c0" + "00".repeat(47);
  const g2Inf = "c0" + "00".repeat(95);
  const info = rehashed(quicknet, { publicKey: g2Inf });
  assert.equal(verifyDrandRound(info, { round: 1, signature: g1Inf }).reason, "bad-public-key");
  assert.equal(
    verifyDrandRound(quicknet, { round: 123, signature: g1Inf }).reason,
    "signature-invalid",
  );
});

Deno.test("parseDrandChainInfo() and parseDrandRound() throw BAD_BEACON on malformed input", () => {
  const bad = (f: () => unknown) =>
    assert.throws(f, (e: unknown) => e instanceof InputError && e.code === "BAD_BEACON");
  const info = JSON.parse(read("quicknet-info.json"));
  bad(() => parseDrandChainInfo("{"));
  bad(() => parseDrandChainInfo(JSON.stringify({ ...info, extra: 1 })));
  bad(() => parseDrandChainInfo(JSON.stringify({ ...info, period: 0 })));
  bad(() => parseDrandChainInfo(JSON.stringify({ ...info, hash: "zz" })));
  bad(() => parseDrandChainInfo(JSON.stringify({ ...info, hash: "ab" })));
  bad(() => parseDrandChainInfo(" ".repeat(20_000)));
  bad(() => parseDrandRound('{"round":0,"signature":"ab"}'));
  bad(() => parseDrandRound('{"round":1.5,"signature":"ab"}'));
  bad(() => parseDrandRound('{"round":1,"signature":"abc"}'));
  bad(() => parseDrandRound('{"round":1,"signature":"ab","randomness":"ab"}'));
  bad(() => parseDrandRound('{"round":1}'));
});

Deno.test("drandRoundTime() is genesis + (round - 1) x period and refuses round 0", () => {
  assert.equal(drandRoundTime(mainnet, 1), 1595431050);
  assert.equal(drandRoundTime(mainnet, 72785), 1595431050 + 72784 * 30);
  assert.throws(() => drandRoundTime(mainnet, 0), RangeError);
});
