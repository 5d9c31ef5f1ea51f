/**
 * The committed `tables/sfu/tesla_sfu_v1.bin` against its source of truth, the shared envytools
 * transcription `../shared/sfu/tesla_sfu_tables.json` (relative to the repository root).
 */
import assert from "node:assert/strict";
import { buildSfuTableBytes, DEFAULT_SFU_JSON } from "../../../tools/sfu/build_tables.ts";
import { decodeSfuTables } from "../../../src/hardware/sfu/mod.ts";
import { readTeslaTableBytes } from "./_fp32_reference.ts";

const jsonUrl = new URL(`../../../${DEFAULT_SFU_JSON}`, import.meta.url);
let jsonText: string | undefined;
try {
  jsonText = Deno.readTextFileSync(jsonUrl);
} catch {
  console.warn(`skipping asset rebuild check: ${jsonUrl.pathname} is absent`);
}

Deno.test({
  name: "`buildSfuTableBytes()` reproduces the committed asset byte for byte when given the " +
    "shared JSON",
  ignore: jsonText === undefined,
  fn() {
    const built = buildSfuTableBytes(jsonText as string);
    assert.deepEqual(built, readTeslaTableBytes());
    assert.deepEqual(buildSfuTableBytes(jsonText as string), built); // deterministic
    const doc = JSON.parse(jsonText as string) as { tables: Record<string, number[][]> };
    const t = decodeSfuTables(built);
    assert.deepEqual(Array.from(t.ex2.subarray(0, 3)), doc.tables.ex2?.[0]);
    assert.deepEqual(Array.from(t.sin.subarray(189, 192)), doc.tables.sin?.[63]);
  },
});

Deno.test("`buildSfuTableBytes()` throws when a row is malformed or a table is short", () => {
  const rows = (n: number) => Array.from({ length: n }, () => [1, -2, 3]);
  const doc = { tables: { rcp: rows(128), rsqrt: rows(128), ex2: rows(64), lg2: rows(64) } };
  assert.throws(() => buildSfuTableBytes(JSON.stringify(doc)), TypeError); // no sin
  const short = { tables: { ...doc.tables, sin: rows(63) } };
  assert.throws(() => buildSfuTableBytes(JSON.stringify(short)), RangeError);
  const bad = { tables: { ...doc.tables, sin: [...rows(63), [1, 2, 2 ** 31]] } };
  assert.throws(() => buildSfuTableBytes(JSON.stringify(bad)), TypeError);
  assert.throws(() => buildSfuTableBytes("{"), SyntaxError);
  const ok = { tables: { ...doc.tables, sin: rows(64) } };
  assert.equal(buildSfuTableBytes(JSON.stringify(ok)).length, 5452);
});
