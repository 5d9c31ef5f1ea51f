import assert from "node:assert/strict";
import { InputError } from "../../../src/errors.ts";
import type { ByteSource } from "../../../src/model/safetensors/byte_source.ts";
import { bytesByteSource } from "../../../src/model/safetensors/bytes_byte_source.ts";
import { encodeSafetensors } from "../../../src/model/safetensors/encode_safetensors.ts";
import { openSafetensors } from "../../../src/model/safetensors/open_safetensors.ts";
import {
  SAFETENSORS_DTYPE_BYTES,
  SAFETENSORS_DTYPES,
} from "../../../src/model/safetensors/safetensors_dtype.ts";
import { entry, openBytes, rawFile, rejectsWithCode } from "./_raw_file.ts";

const U8x4 = entry("U8", [4], [0, 4]);

const _KINDS: Record<string, string> = {
  BOOL: "Uint8Array",
  U8: "Uint8Array",
  I8: "Int8Array",
  F8_E4M3: "Uint8Array",
  F8_E5M2: "Uint8Array",
  U16: "Uint16Array",
  I16: "Int16Array",
  F16: "Uint16Array",
  BF16: "Uint16Array",
  U32: "Uint32Array",
  I32: "Int32Array",
  F32: "Uint32Array",
  U64: "BigUint64Array",
  I64: "BigInt64Array",
  F64: "BigUint64Array",
};

const _SHAPES = [[], [0], [1], [5], [2, 3], [2, 0, 3], [0, 0], [1, 1, 1, 2]];

/** Reads element `i` of little-endian `bytes` the way the view should, via DataView. */
function _element(dtype: string, bytes: Uint8Array, i: number): number | bigint {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = SAFETENSORS_DTYPE_BYTES[dtype as "U8"];
  const signed = dtype.startsWith("I");
  if (size === 1) return signed ? dv.getInt8(i) : dv.getUint8(i);
  if (size === 2) return signed ? dv.getInt16(2 * i, true) : dv.getUint16(2 * i, true);
  if (size === 4) return signed ? dv.getInt32(4 * i, true) : dv.getUint32(4 * i, true);
  return signed ? dv.getBigInt64(8 * i, true) : dv.getBigUint64(8 * i, true);
}

Deno.test("`openSafetensors()` round-trips every dtype and shape when given raw bytes", async () => {
  let seed = 12345;
  const tensors = SAFETENSORS_DTYPES.flatMap((dtype) =>
    _SHAPES.map((shape, k) => {
      const n = shape.reduce((a, b) => a * b, 1) * SAFETENSORS_DTYPE_BYTES[dtype];
      const data = new Uint8Array(n).map(() => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
      return { name: `${dtype}.${k}`, dtype, shape, data };
    })
  );
  const file = await openBytes(encodeSafetensors(tensors));
  assert.equal(file.header.tensors.length, tensors.length);
  for (const t of tensors) {
    const e = file.entry(t.name);
    assert.equal(e.dtype, t.dtype);
    assert.deepEqual(e.shape, t.shape);
    assert.equal(e.elementCount, t.data.length / SAFETENSORS_DTYPE_BYTES[t.dtype]);
    assert.equal(e.byteLength, t.data.length);
    assert.ok(Object.isFrozen(e) && Object.isFrozen(e.shape));
    assert.deepEqual(await file.tensor(t.name), t.data);
    const view = await file.tensorView(t.name);
    assert.equal(view.constructor.name, _KINDS[t.dtype], t.name);
    assert.equal(view.length, e.elementCount);
    for (let i = 0; i < view.length; i++) assert.equal(view[i], _element(t.dtype, t.data, i));
  }
});

Deno.test("`tensorView()` keeps NaN payloads and signed zeros when the dtype is a float", async () => {
  const f32 = new Uint32Array([0x7fa00001, 0xffc00000, 0x80000000, 0x00000001]);
  const f64 = new BigUint64Array([0x7ff0000000000001n, 0x8000000000000000n]);
  const file = await openBytes(encodeSafetensors([
    { name: "f32", dtype: "F32", shape: [4], data: f32 },
    { name: "f64", dtype: "F64", shape: [2], data: f64 },
  ]));
  assert.deepEqual(await file.tensorView("f32"), f32);
  assert.deepEqual(await file.tensorView("f64"), f64);
});

Deno.test("`openSafetensors()` reads only the prefix and header when opening", async () => {
  const bytes = encodeSafetensors([
    { name: "a", dtype: "U8", shape: [1000], data: new Uint8Array(1000).fill(1) },
    { name: "b", dtype: "U8", shape: [500], data: new Uint8Array(500).fill(2) },
  ]);
  const inner = bytesByteSource(bytes);
  const reads: [number, number][] = [];
  const source: ByteSource = {
    size: inner.size,
    read: (offset, length) => {
      reads.push([offset, length]);
      return inner.read(offset, length);
    },
  };
  const file = await openSafetensors(source);
  const n = file.header.headerByteLength;
  assert.deepEqual(reads, [[0, 8], [8, n]]);
  const b = await file.tensor("b");
  assert.deepEqual(reads[2], [file.entry("b").byteOffset, 500]);
  assert.ok(b.every((x) => x === 2));
  await file.tensor("b");
  assert.equal(reads.length, 4); // no caching: each call reads again
});

Deno.test("`openSafetensors()` accepts edge layouts the format allows", async () => {
  // Empty tensors at the start, between and at the end; entries listed out of buffer order;
  // a "__proto__" tensor; trailing spaces, tab and newline after the JSON.
  const header = `{"z":${entry("U8", [2], [4, 6])},"__proto__":${entry("I16", [2], [0, 4])},` +
    `"e0":${entry("F32", [0], [0, 0])},"e1":${entry("BF16", [3, 0], [4, 4])},` +
    `"e2":${entry("U8", [0], [6, 6])}}  \t\n`;
  const data = new Uint8Array([1, 0, 0xff, 0xff, 7, 8]);
  const file = await openBytes(rawFile(header, data));
  assert.deepEqual(
    file.header.tensors.map((e) => e.name),
    ["e0", "__proto__", "e1", "z", "e2"],
  );
  assert.deepEqual([...(await file.tensorView("__proto__"))], [1, -1]);
  assert.deepEqual(await file.tensor("e1"), new Uint8Array(0));
  assert.deepEqual(file.metadata, {});
  assert.equal(file.header.dataByteLength, 6);
});

Deno.test("`openSafetensors()` reads metadata with any string keys when present", async () => {
  const file = await openBytes(
    rawFile('{"__metadata__":{"format":"pt","__proto__":"x","":"\\u00e9"}}'),
  );
  assert.equal(file.metadata.format, "pt");
  assert.equal(Object.hasOwn(file.metadata, "__proto__"), true);
  assert.equal(file.metadata[""], "\u00e9");
  assert.ok(Object.isFrozen(file.metadata) && Object.isFrozen(file.header));
});

Deno.test("`openSafetensors()` refuses with SAFETENSORS_HEADER_TOO_LARGE when over a custom limit", async () => {
  const bytes = rawFile(`{"a":${U8x4}}`, 4);
  await rejectsWithCode(openBytes(bytes, { maxHeaderBytes: 16 }), "SAFETENSORS_HEADER_TOO_LARGE");
  await openBytes(bytes, { maxHeaderBytes: `{"a":${U8x4}}`.length });
});

Deno.test("`openSafetensors()` refuses with BYTE_SOURCE_SHORT_READ when the source returns less", async () => {
  const full = rawFile(`{"a":${U8x4}}`, 4);
  const source: ByteSource = {
    size: full.length,
    read: (offset, length) =>
      Promise.resolve(full.slice(offset, offset + length - (offset ? 1 : 0))),
  };
  await rejectsWithCode(openSafetensors(source), "BYTE_SOURCE_SHORT_READ");
});

Deno.test("`openSafetensors()` throws TypeError or RangeError when misused", async () => {
  await assert.rejects(openSafetensors({} as ByteSource), TypeError);
  await assert.rejects(
    openSafetensors({ size: -1, read: () => Promise.resolve(new Uint8Array()) }),
    TypeError,
  );
  await assert.rejects(openBytes(rawFile("{}"), { maxHeaderBytes: -1 }), RangeError);
});

Deno.test("`tensor()` refuses with SAFETENSORS_MISSING_TENSOR when the name is absent", async () => {
  const file = await openBytes(rawFile(`{"a":${U8x4}}`, 4));
  await rejectsWithCode(file.tensor("b"), "SAFETENSORS_MISSING_TENSOR");
  await rejectsWithCode(file.tensorView("__metadata__"), "SAFETENSORS_MISSING_TENSOR");
  assert.throws(() => file.entry("toString"), InputError);
  assert.equal(file.has("a"), true);
  assert.equal(file.has("toString"), false);
});
