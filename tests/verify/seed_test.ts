import assert from "node:assert/strict";
import { bytesToHex } from "@noble/hashes/utils.js";
import { AUDIT_SEED_DOMAIN, deriveSeed } from "../../src/verify/seed.ts";

const base = {
  auditId: "audit-2026-11-05",
  logRoot: "0f".repeat(32),
  randomness: "fc1873a13f",
  round: 657413,
};

Deno.test("deriveSeed() hashes the documented byte layout when computed independently", async () => {
  // Written out by hand: u32be length prefixes, u64be round.
  const hex = [
    "00000016",
    Array.from(
      new TextEncoder().encode("bitaudit/audit-seed/v1"),
      (b) => b.toString(16).padStart(2, "0"),
    ).join(""),
    "00000010",
    Array.from(new TextEncoder().encode("audit-2026-11-05"), (b) => b.toString(16).padStart(2, "0"))
      .join(""),
    "00000020",
    "0f".repeat(32),
    "00000005",
    "fc1873a13f",
    "00000000000a0805", // 657413 = 0x0a0805
  ].join("");
  const bytes = new Uint8Array(hex.match(/../g)!.map((h) => parseInt(h, 16)));
  const want = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  assert.equal(AUDIT_SEED_DOMAIN.length, 22);
  assert.equal(bytesToHex(deriveSeed(base)), bytesToHex(want));
});

Deno.test("deriveSeed() changes when any input changes and ignores hex case", () => {
  const ref = bytesToHex(deriveSeed(base));
  const variants = [
    { ...base, auditId: "audit-2026-11-06" },
    { ...base, logRoot: "0e" + "0f".repeat(31) },
    { ...base, randomness: "fc1873a13e" },
    { ...base, randomness: "fc1873a13f00" },
    { ...base, round: 657414 },
  ];
  for (const v of variants) assert.notEqual(bytesToHex(deriveSeed(v)), ref);
  assert.equal(bytesToHex(deriveSeed({ ...base, logRoot: "0F".repeat(32) })), ref);
  assert.equal(bytesToHex(deriveSeed({ ...base, randomness: "FC1873A13F" })), ref);
});

Deno.test("deriveSeed() throws on malformed fields", () => {
  assert.throws(() => deriveSeed({ ...base, auditId: "" }), RangeError);
  assert.throws(() => deriveSeed({ ...base, auditId: "\ud800" }), TypeError);
  assert.throws(() => deriveSeed({ ...base, logRoot: "0f".repeat(31) }), RangeError);
  assert.throws(() => deriveSeed({ ...base, logRoot: "0g".repeat(32) }), TypeError);
  assert.throws(() => deriveSeed({ ...base, randomness: "abc" }), TypeError);
  assert.throws(() => deriveSeed({ ...base, randomness: "" }), RangeError);
  assert.throws(() => deriveSeed({ ...base, round: -1 }), RangeError);
  assert.throws(() => deriveSeed({ ...base, round: 1.5 }), RangeError);
  assert.throws(() => deriveSeed({ ...base, round: 2 ** 53 }), RangeError);
});
