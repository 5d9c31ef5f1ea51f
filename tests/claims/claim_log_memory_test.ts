/**
 * `parseClaimLog()` memory: a parsed log holds its text and digests, not a parsed value per
 * record. Regression: 85 lines of 1,048,000 `{}` each (255 MiB, every line within
 * `MAX_RECORD_VALUES`) ended `audit` and `check --log` with V8's fatal out-of-memory (exit 133).
 */
import assert from "node:assert/strict";
import {
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  parseClaimLog,
  recordDigest,
} from "../../src/claims/mod.ts";
import { printedInSmallHeap } from "../_small_heap.ts";

/** A chained log of `lines` records of an unknown kind, each holding `values` empty objects. */
function objectsLog(lines: number, values: number): string {
  let prev = GENESIS_PREV;
  const text: string[] = [];
  for (let seq = 0; seq < lines; seq++) {
    const record = makeClaimRecord({
      log: { logId: "objects", seq, prev },
      hardware: { profile: "a100", profileSha256: "ab".repeat(32), count: 1 },
      software: { stack: "pytorch-cublas-linear", components: {} },
      parallelism: { tp: 1, pp: 1, ep: 1, dp: 1 },
      batch: { size: 1 },
      workload: { kind: "future", data: Array.from({ length: values }, () => ({})) },
      fingerprint: { tensor: "y", dtype: "bf16", shape: [1], sha256: "cd".repeat(32) },
    });
    prev = recordDigest(record);
    text.push(formatClaimLog([record]));
  }
  return text.join("");
}

Deno.test("parseClaimLog() parses a log whose parsed values would not fit the heap, one line at a time", async () => {
  // 8 lines of 200,000 `{}`: 4.8 MB of text, over 100 MB as objects; each line alone ~15 MB.
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    await Deno.writeTextFile(path, objectsLog(8, 200_000));
    const mod = new URL("../../src/claims/mod.ts", import.meta.url).href;
    const code = `const { parseClaimLog } = await import(${JSON.stringify(mod)});
      const log = parseClaimLog(await Deno.readTextFile(${JSON.stringify(path)}));
      console.log(log.records.length, log.records[5].predicate.workload.data.length);`;
    assert.equal(await printedInSmallHeap(code), "8 200000");
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("parseClaimLog() records read back from their lines: the same records, read-only", () => {
  const text = objectsLog(3, 2);
  const log = parseClaimLog(text);
  assert.equal(log.records.length, 3);
  assert.ok(Array.isArray(log.records));
  assert.equal(formatClaimLog(log.records), text);
  assert.deepEqual(log.records.map(recordDigest), log.digests);
  assert.deepEqual([...log.records], JSON.parse(`[${text.trim().split("\n").join(",")}]`));
  assert.deepEqual(Object.keys(log.records), ["0", "1", "2"]);
  const held = log.records[1];
  assert.deepEqual(log.records[1], held, "a record read again is built again, equal");
  // Records are deeply frozen: what a reader sees is what was committed.
  assert.ok(Object.isFrozen(held) && Object.isFrozen(held!.predicate.fingerprint));
  assert.throws(() => {
    (held!.predicate.fingerprint as { sha256: string }).sha256 = "00".repeat(32);
  }, TypeError);
  // The view cannot be frozen, sealed or re-prototyped into something else.
  assert.throws(() => Object.freeze(log.records), TypeError);
  assert.throws(() => Object.preventExtensions(log.records), TypeError);
  assert.throws(() => Object.setPrototypeOf(log.records, null), TypeError);
  assert.deepEqual(Object.keys(log.records), ["0", "1", "2"]);
  assert.equal(typeof log.records.map, "function");
  assert.equal(log.records[3], undefined);
  assert.equal(log.records.at(-1)?.predicate.log.seq, 2);
  const records = log.records as unknown as unknown[];
  assert.throws(() => (records[0] = {}), TypeError);
  assert.throws(() => records.push({}), TypeError);
  assert.throws(() => (records.length = 0), TypeError);
  assert.equal(log.records.length, 3);
});
