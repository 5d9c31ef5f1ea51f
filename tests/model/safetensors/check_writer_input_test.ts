import assert from "node:assert/strict";
import { encodeSafetensors } from "../../../src/model/safetensors/encode_safetensors.ts";
import { encodeSafetensorsChunks } from "../../../src/model/safetensors/encode_safetensors_chunks.ts";
import type { SafetensorsTensorInput } from "../../../src/model/safetensors/check_writer_input.ts";

function _t(over: Record<string, unknown>): SafetensorsTensorInput {
  return { name: "t", dtype: "U8", shape: [2], data: new Uint8Array(2), ...over } as never;
}

const _cases: [string, unknown, typeof TypeError | typeof RangeError][] = [
  ["tensors not an array", "x", TypeError],
  ["a tensor that is null", [null], TypeError],
  ["a name that is not a string", [_t({ name: 3 })], TypeError],
  ["the reserved name", [_t({ name: "__metadata__" })], RangeError],
  ["a name with a lone surrogate", [_t({ name: "a\ud800" })], RangeError],
  ["a repeated name", [_t({}), _t({})], RangeError],
  ["a dtype that is not a string", [_t({ dtype: 2 })], TypeError],
  ["an unknown dtype", [_t({ dtype: "bf16" })], RangeError],
  ["a shape that is not an array", [_t({ shape: 2 })], TypeError],
  ["a dimension that is not a number", [_t({ shape: ["2"] })], TypeError],
  ["a negative dimension", [_t({ shape: [-2] })], RangeError],
  ["a fractional dimension", [_t({ shape: [1.5] })], RangeError],
  ["an unsafe dimension", [_t({ shape: [2 ** 53] })], RangeError],
  ["data that is not a typed array", [_t({ data: [1, 2] })], TypeError],
  ["a DataView", [_t({ data: new DataView(new ArrayBuffer(2)) })], TypeError],
  ["too few bytes for the shape", [_t({ shape: [3] })], RangeError],
  ["too many bytes for the shape", [_t({ shape: [] })], RangeError],
  ["raw bytes too short for the dtype", [_t({ dtype: "BF16", shape: [2] })], RangeError],
  [
    "Uint32Array for a 2-byte dtype",
    [_t({ dtype: "F16", shape: [2], data: new Uint32Array(1) })],
    TypeError,
  ],
  [
    "Float64Array for F32",
    [_t({ dtype: "F32", shape: [1], data: new Float64Array(1) })],
    TypeError,
  ],
];

for (const [what, tensors, Kind] of _cases) {
  Deno.test(`\`encodeSafetensors()\` throws ${Kind.name} when given ${what}`, () => {
    assert.throws(() => encodeSafetensors(tensors as SafetensorsTensorInput[]), Kind);
  });
}

Deno.test("`encodeSafetensors()` throws TypeError when a metadata value is not a string", () => {
  assert.throws(() => encodeSafetensors([], { metadata: { a: 1 } as never }), TypeError);
  assert.throws(() => encodeSafetensors([], { metadata: null as never }), TypeError);
});

Deno.test("`encodeSafetensors()` throws RangeError when metadata holds a lone surrogate", () => {
  assert.throws(() => encodeSafetensors([], { metadata: { a: "\udc00" } }), RangeError);
});

Deno.test("`encodeSafetensorsChunks()` throws at once, not on iteration, when inputs are bad", () => {
  assert.throws(() => encodeSafetensorsChunks([_t({ dtype: "X" })]), RangeError);
});

Deno.test("`encodeSafetensors()` accepts any 1-byte typed array for a 1-byte dtype", () => {
  for (const data of [new Int8Array(2), new Uint8ClampedArray(2), new Uint8Array(2)]) {
    encodeSafetensors([_t({ dtype: "I8", data })]);
  }
  // A Uint8Array is raw bytes for any dtype.
  encodeSafetensors([_t({ dtype: "F32", shape: [1], data: new Uint8Array(4) })]);
});
