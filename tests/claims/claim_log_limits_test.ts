/** `parseClaimLog()` limits: the byte limit counts UTF-8 bytes, as a reader of the file does. */
import assert from "node:assert/strict";
import {
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  parseClaimLog,
  parseClaimLogInSteps,
  parseClaimRecord,
} from "../../src/claims/mod.ts";
import { InputError } from "../../src/errors.ts";

const text = formatClaimLog([
  makeClaimRecord({
    log: { logId: "bytes", seq: 0, prev: GENESIS_PREV },
    hardware: { profile: "a100", profileSha256: "ab".repeat(32), count: 1 },
    software: {
      stack: "pytorch-cublas-linear",
      components: { a: "€".repeat(150), b: "€".repeat(150), c: "€".repeat(150) },
    },
    parallelism: { tp: 1, pp: 1, ep: 1, dp: 1 },
    batch: { size: 1 },
    workload: { kind: "future", tokens: [1] },
    fingerprint: { tensor: "y", dtype: "bf16", shape: [1, 8], sha256: "cd".repeat(32) },
  }),
]);

Deno.test("parseClaimLog() measures its byte limit in UTF-8 bytes, not UTF-16 units", () => {
  const bytes = new TextEncoder().encode(text).length;
  assert.ok(bytes > text.length + 500, "each euro sign is three bytes and one unit");
  assert.equal(parseClaimLog(text, { maxBytes: bytes }).records.length, 1);
  assert.throws(
    () => parseClaimLog(text, { maxBytes: bytes - 1 }),
    (e) => e instanceof InputError && e.code === "LOG_TOO_LARGE",
  );
  // Within the limit in units, over it in bytes: what a reader of the file would refuse.
  assert.ok(text.length <= bytes - 1);
});

Deno.test("parseClaimRecord() bounds component names and their count, and quotes a bad name short", () => {
  const record = (components: Record<string, string>) => {
    const r = JSON.parse(text.trim());
    r.predicate.software.components = components;
    return JSON.stringify(r) + "\n";
  };
  const refused = (components: Record<string, string>, why: RegExp) =>
    assert.throws(() => parseClaimLog(record(components)), (e) => {
      assert.ok(e instanceof InputError && e.code === "CLAIM_INVALID", String(e));
      assert.match(e.message, why);
      assert.ok(e.message.length < 400, `one short line: ${e.message.length} characters`);
      return true;
    });
  refused({ ["pytorch" + " ".repeat(5_000_000)]: "9.9.9" }, /components\["pytorch {73}\.\.\."\]/);
  refused({ "": "1" }, /components\[""\]/);
  const many = Object.fromEntries(Array.from({ length: 129 }, (_, i) => [`c${i}`, "1"]));
  refused(many, /at most 128 entries, got 129/);
  delete many.c128;
  assert.equal(parseClaimLog(record(many)).records.length, 1);
  assert.equal(parseClaimLog(record({ ["n".repeat(200)]: "1" })).records.length, 1);
  // Counted in code points, as the published schema's maxLength counts them: 200 emoji (400
  // UTF-16 units) are 200 characters.
  assert.equal(parseClaimLog(record({ a: "\u{1F600}".repeat(200) })).records.length, 1);
  refused({ a: "\u{1F600}".repeat(201) }, /components\["a"\]/);
});

Deno.test("parseClaimLog() counts records before splitting: 140 million newlines (within the byte limit) are LOG_TOO_LARGE, not more array elements than V8 can make", () => {
  assert.throws(
    () => parseClaimLog("\n".repeat(140_000_000)),
    (e) =>
      e instanceof InputError && e.code === "LOG_TOO_LARGE" &&
      /more than 1000000 records/.test(e.message),
  );
  assert.throws(
    () => parseClaimLog(text.repeat(3), { maxRecords: 2 }),
    (e) => e instanceof InputError && /more than 2 records|3 records/.test(e.message),
  );
});

Deno.test("parseClaimLog() refuses limits that are not integers >= 0 (NaN bounded nothing), and an input that is not text (LOG_SYNTAX)", async () => {
  for (const bad of [Number.NaN, -1, 1.5, Infinity, "5" as unknown as number]) {
    assert.throws(() => parseClaimLog(text, { maxBytes: bad }), RangeError);
    assert.throws(() => parseClaimLog(text, { maxRecords: bad }), RangeError);
    await assert.rejects(
      parseClaimLogInSteps(text, { pause: () => Promise.resolve() }, { maxRecords: bad }),
      RangeError,
    );
  }
  assert.equal(parseClaimLog(text, { maxRecords: 1 }).records.length, 1);
  for (const v of [null, undefined, 5, {}, new Uint8Array(3)]) {
    assert.throws(
      () => parseClaimLog(v as unknown as string),
      (e) => e instanceof InputError && e.code === "LOG_SYNTAX",
    );
  }
});

Deno.test("parseClaimRecord() refuses arrays with holes (a shape of 2 empty items was accepted)", () => {
  const line = JSON.parse(text.trim());
  const shape: unknown[] = [];
  shape.length = 2;
  line.predicate.fingerprint.shape = shape;
  assert.throws(
    () => parseClaimRecord(line, "line 1"),
    (e) => e instanceof InputError && e.code === "CLAIM_INVALID" && /shape\[0\]/.test(e.message),
  );
});
