import assert from "node:assert/strict";
import { encodeSafetensors } from "../../../src/model/safetensors/encode_safetensors.ts";
import { encodeSafetensorsChunks } from "../../../src/model/safetensors/encode_safetensors_chunks.ts";
import type { SafetensorsTensorInput } from "../../../src/model/safetensors/check_writer_input.ts";
import { openBytes } from "./_raw_file.ts";

Deno.test("`encodeSafetensors()` writes the exact reference layout when given a small file", () => {
  const bytes = encodeSafetensors(
    [
      { name: "b", dtype: "U8", shape: [3], data: new Uint8Array([1, 2, 3]) },
      { name: "a", dtype: "F32", shape: [], data: new Uint32Array([0x3f800000]) },
    ],
    { metadata: { k: "v" } },
  );
  const header = '{"__metadata__":{"k":"v"},' +
    '"a":{"dtype":"F32","shape":[],"data_offsets":[0,4]},' +
    '"b":{"dtype":"U8","shape":[3],"data_offsets":[4,7]}}' + "      "; // 130 bytes + 6 spaces
  const expected = [
    ...[0x88, 0, 0, 0, 0, 0, 0, 0], // u64 LE 136
    ...new TextEncoder().encode(header),
    ...[0x00, 0x00, 0x80, 0x3f], // 1.0f little-endian
    ...[1, 2, 3],
  ];
  assert.equal(header.length, 136);
  assert.deepEqual([...bytes], expected);
});

Deno.test("`encodeSafetensors()` writes '{}' padded to 8 bytes when given no tensors", () => {
  const bytes = encodeSafetensors([]);
  assert.deepEqual([...bytes], [8, 0, 0, 0, 0, 0, 0, 0, 0x7b, 0x7d, 32, 32, 32, 32, 32, 32]);
});

Deno.test("`encodeSafetensors()` aligns every tensor to its element size when dtypes are mixed", async () => {
  const tensors: SafetensorsTensorInput[] = [
    { name: "u8", dtype: "U8", shape: [3], data: new Uint8Array(3) },
    { name: "f16", dtype: "F16", shape: [1], data: new Uint16Array(1) },
    { name: "f64", dtype: "F64", shape: [2], data: new BigUint64Array(2) },
    { name: "bool", dtype: "BOOL", shape: [1], data: new Uint8Array(1) },
    { name: "i32", dtype: "I32", shape: [3], data: new Int32Array(3) },
    { name: "bf16", dtype: "BF16", shape: [5], data: new Uint16Array(5) },
  ];
  const bytes = encodeSafetensors(tensors);
  const file = await openBytes(bytes);
  assert.equal(file.header.dataStart % 8, 0);
  for (const e of file.header.tensors) {
    const size = e.byteLength / e.elementCount;
    assert.equal(e.byteOffset % size, 0, `${e.name} at ${e.byteOffset}`);
  }
  assert.deepEqual(
    file.header.tensors.map((e) => e.name),
    ["f64", "i32", "bf16", "f16", "bool", "u8"],
  );
});

Deno.test("`encodeSafetensors()` gives the same bytes when the inputs come in another order", () => {
  const a = { name: "a", dtype: "I16", shape: [2], data: new Int16Array([1, -2]) } as const;
  const b = { name: "b", dtype: "I16", shape: [1], data: new Int16Array([3]) } as const;
  const c = { name: "10", dtype: "U8", shape: [0], data: new Uint8Array(0) } as const;
  const meta1 = { z: "1", "2": "x", a: "y" };
  const meta2 = { a: "y", z: "1", "2": "x" };
  assert.deepEqual(
    encodeSafetensors([a, b, c], { metadata: meta1 }),
    encodeSafetensors([c, b, a], { metadata: meta2 }),
  );
});

Deno.test("`encodeSafetensorsChunks()` yields the header then views of the data when iterated", () => {
  const big = new Uint8Array(1024).fill(7);
  const chunks = encodeSafetensorsChunks([
    { name: "big", dtype: "U8", shape: [1024], data: big },
    { name: "empty", dtype: "F32", shape: [0, 4], data: new Float32Array(0) },
  ]);
  const list = [...chunks];
  assert.equal(list.length, 2); // empty tensors yield no chunk
  assert.equal(list[1]?.buffer, big.buffer); // no copy of the data
  assert.equal(chunks.byteLength, list[0]!.length + 1024);
  assert.equal([...chunks].length, 2); // iterable twice
  const joined = new Uint8Array(chunks.byteLength);
  let at = 0;
  for (const c of chunks) {
    joined.set(c, at);
    at += c.length;
  }
  assert.deepEqual(
    joined,
    encodeSafetensors([
      { name: "empty", dtype: "F32", shape: [0, 4], data: new Float32Array(0) },
      { name: "big", dtype: "U8", shape: [1024], data: big },
    ]),
  );
});

Deno.test("`encodeSafetensors()` takes subarray views at their own offset when data is a view", async () => {
  const backing = new Uint16Array([9, 9, 0x1234, 0xabcd, 9]);
  const bytes = encodeSafetensors([
    { name: "v", dtype: "BF16", shape: [2], data: backing.subarray(2, 4) },
  ]);
  const v = await (await openBytes(bytes)).tensorView("v");
  assert.deepEqual([...v], [0x1234, 0xabcd]);
});
