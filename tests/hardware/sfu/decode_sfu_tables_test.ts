import assert from "node:assert/strict";
import { AssetError } from "../../../src/errors.ts";
import {
  decodeSfuTables,
  encodeSfuTables,
  sfuTableByteLength,
} from "../../../src/hardware/sfu/mod.ts";
import { readTeslaTableBytes } from "./_fp32_reference.ts";
import { assertCode } from "../../_assert_code.ts";

Deno.test("`decodeSfuTables()` round-trips through `encodeSfuTables()` when given the asset", () => {
  const bytes = readTeslaTableBytes();
  assert.equal(bytes.length, sfuTableByteLength());
  const t = decodeSfuTables(bytes);
  assert.equal(t.rcp.length, 384);
  assert.equal(t.rsqrt.length, 384);
  assert.equal(t.ex2.length, 192);
  assert.deepEqual(encodeSfuTables(t), bytes);
  assert.ok(Object.isFrozen(t));
});

Deno.test("`decodeSfuTables()` refuses malformed files with coded errors", () => {
  const good = readTeslaTableBytes();
  const edit = (f: (b: Uint8Array) => void) => {
    const b = good.slice();
    f(b);
    return b;
  };
  assertCode(() => decodeSfuTables(new Uint8Array(3)), AssetError, "SFU_TABLE_TRUNCATED");
  assertCode(() => decodeSfuTables(edit((b) => b[0] = 0x41)), AssetError, "SFU_TABLE_MAGIC");
  assertCode(() => decodeSfuTables(edit((b) => b[4] = 2)), AssetError, "SFU_TABLE_VERSION");
  assertCode(() => decodeSfuTables(edit((b) => b[8] = 4)), AssetError, "SFU_TABLE_LAYOUT");
  assertCode(() => decodeSfuTables(edit((b) => b[13] = 1)), AssetError, "SFU_TABLE_LAYOUT");
  assertCode(() => decodeSfuTables(edit((b) => b[16] = 0x78)), AssetError, "SFU_TABLE_LAYOUT");
  assertCode(() => decodeSfuTables(edit((b) => b[20] = 0x78)), AssetError, "SFU_TABLE_LAYOUT");
  assertCode(() => decodeSfuTables(edit((b) => b[24] = 64)), AssetError, "SFU_TABLE_LAYOUT");
  assertCode(() => decodeSfuTables(good.slice(0, good.length - 1)), AssetError, "SFU_TABLE_LENGTH");
  const longer = new Uint8Array(good.length + 4);
  longer.set(good);
  assertCode(() => decodeSfuTables(longer), AssetError, "SFU_TABLE_LENGTH");
  assert.throws(() => decodeSfuTables([1, 2] as unknown as Uint8Array), TypeError);
});

Deno.test("`decodeSfuTables()` reads a view with a non-zero byte offset", () => {
  const good = readTeslaTableBytes();
  const buf = new Uint8Array(good.length + 8);
  buf.set(good, 8);
  assert.deepEqual(decodeSfuTables(buf.subarray(8)).rcp, decodeSfuTables(good).rcp);
});

Deno.test("`encodeSfuTables()` throws RangeError when a table has the wrong length", () => {
  const t = decodeSfuTables(readTeslaTableBytes());
  assert.throws(() => encodeSfuTables({ ...t, lg2: new Int32Array(3) }), RangeError);
});
