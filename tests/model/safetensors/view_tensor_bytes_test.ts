import assert from "node:assert/strict";
import { viewTensorBytes } from "../../../src/model/safetensors/view_tensor_bytes.ts";
import { HOST_IS_LITTLE_ENDIAN, swapBytes } from "../../../src/model/safetensors/little_endian.ts";

Deno.test("`viewTensorBytes()` shares memory when the bytes are aligned", () => {
  const backing = new Uint8Array([0, 0, 0, 0, 0x80, 0x3f, 0xc0, 0x7f]);
  const view = viewTensorBytes("BF16", backing.subarray(4));
  assert.equal(view.buffer, backing.buffer);
  assert.deepEqual([...view], [0x3f80, 0x7fc0]);
});

Deno.test("`viewTensorBytes()` copies when the bytes are misaligned", () => {
  const backing = new Uint8Array([9, 0x00, 0x00, 0x80, 0xbf]);
  const view = viewTensorBytes("F32", backing.subarray(1));
  assert.notEqual(view.buffer, backing.buffer);
  assert.deepEqual([...view], [0xbf800000]);
});

Deno.test("`viewTensorBytes()` throws RangeError when the length is not a multiple of the size", () => {
  assert.throws(() => viewTensorBytes("I64", new Uint8Array(12)), RangeError);
});

Deno.test("`swapBytes()` reverses each element and rejects ragged input", () => {
  assert.deepEqual([...swapBytes(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), 8)], [
    8,
    7,
    6,
    5,
    4,
    3,
    2,
    1,
  ]);
  assert.deepEqual([...swapBytes(new Uint8Array([1, 2]), 1)], [1, 2]);
  assert.throws(() => swapBytes(new Uint8Array(3), 2), RangeError);
  assert.equal(HOST_IS_LITTLE_ENDIAN, true); // every platform Deno ships for
});
