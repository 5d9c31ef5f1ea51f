import assert from "node:assert/strict";
import { entry, openBytes, rawFile, rejectsWithCode } from "./_raw_file.ts";
import type { SafetensorsCode } from "../../../src/errors.ts";
import {
  DEFAULT_MAX_TENSORS,
  headerValueLimit,
  MAX_METADATA_CHARS,
  MAX_METADATA_ENTRIES,
} from "../../../src/model/safetensors/parse_safetensors_header.ts";
import {
  HEADER_BYTES_BESIDES_TENSORS,
  HEADER_BYTES_PER_TENSOR,
} from "../../../src/model/safetensors/open_safetensors.ts";

const U8x4 = entry("U8", [4], [0, 4]);

/** [case name, file bytes, expected code] */
const _cases: [string, Uint8Array, SafetensorsCode][] = [
  ["the file is empty", new Uint8Array(0), "SAFETENSORS_TOO_SHORT"],
  ["the file has 7 bytes", new Uint8Array(7), "SAFETENSORS_TOO_SHORT"],
  ["the prefix is above 100 MB", rawFile("{}", 0, 100_000_001n), "SAFETENSORS_HEADER_TOO_LARGE"],
  ["the prefix is 2^64 - 1", rawFile("{}", 0, 2n ** 64n - 1n), "SAFETENSORS_HEADER_TOO_LARGE"],
  ["the prefix runs past the file", rawFile("{}", 0, 3n), "SAFETENSORS_HEADER_TRUNCATED"],
  [
    "the header is not UTF-8",
    rawFile(new Uint8Array([0x7b, 0xff, 0x7d])),
    "SAFETENSORS_HEADER_UTF8",
  ],
  ["the header has a BOM", rawFile("\ufeff{}"), "SAFETENSORS_HEADER_JSON"],
  ["the header is cut JSON", rawFile('{"a":'), "SAFETENSORS_HEADER_JSON"],
  ["the header is padded with NULs", rawFile("{}\0\0"), "SAFETENSORS_HEADER_JSON"],
  ["the header is an array", rawFile("[]"), "SAFETENSORS_HEADER_NOT_OBJECT"],
  ["the header is null", rawFile("null"), "SAFETENSORS_HEADER_NOT_OBJECT"],
  ["the header starts with a space", rawFile(" {}"), "SAFETENSORS_OFF_FORMAT"],
  ["the header's padding holds a carriage return", rawFile("{} \r"), "SAFETENSORS_OFF_FORMAT"],
  [
    "a carriage return stands between tokens",
    rawFile(`{"a":\r${entry("U8", [4], [0, 4])}}`, 4),
    "SAFETENSORS_OFF_FORMAT",
  ],
  [
    "an entry has a field the format does not define",
    rawFile('{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4],"x":1.5}}', 4),
    "SAFETENSORS_OFF_FORMAT",
  ],
  // A departure the reference reader reads comes last: a file broken otherwise gets that code.
  [
    "a header starting with a space has a bad byte length",
    rawFile(` {"a":${entry("U8", [4], [0, 3])}}`, 3),
    "SAFETENSORS_BYTE_LENGTH",
  ],
  [
    "an entry with an unknown field has a shape written 4.0",
    rawFile('{"a":{"x":[1.5,-0],"dtype":"U8","shape":[4.0],"data_offsets":[0,4]}}', 4),
    "SAFETENSORS_SHAPE",
  ],
  [
    "a header with a carriage return leaves bytes between tensors",
    rawFile(`{"a":${entry("U8", [4], [0, 4])},\r"b":${entry("U8", [4], [5, 9])}}`, 9),
    "SAFETENSORS_GAP",
  ],
  ["an entry is a number", rawFile('{"a":1}'), "SAFETENSORS_ENTRY_FIELD"],
  [
    "an entry lacks dtype",
    rawFile('{"a":{"shape":[],"data_offsets":[0,0]}}'),
    "SAFETENSORS_ENTRY_FIELD",
  ],
  [
    "an entry lacks shape",
    rawFile('{"a":{"dtype":"U8","data_offsets":[0,1]}}', 1),
    "SAFETENSORS_ENTRY_FIELD",
  ],
  [
    "an entry lacks data_offsets",
    rawFile('{"a":{"dtype":"U8","shape":[]}}'),
    "SAFETENSORS_ENTRY_FIELD",
  ],
  [
    "dtype is a number",
    rawFile(`{"a":${entry("U8", [4], [0, 4]).replace('"U8"', "8")}}`, 4),
    "SAFETENSORS_ENTRY_FIELD",
  ],
  [
    "shape is a number",
    rawFile('{"a":{"dtype":"U8","shape":4,"data_offsets":[0,4]}}', 4),
    "SAFETENSORS_ENTRY_FIELD",
  ],
  [
    "data_offsets is an object",
    rawFile('{"a":{"dtype":"U8","shape":[4],"data_offsets":{}}}', 4),
    "SAFETENSORS_ENTRY_FIELD",
  ],
  ["dtype is lower case", rawFile(`{"a":${entry("u8", [4], [0, 4])}}`, 4), "SAFETENSORS_DTYPE"],
  ["dtype is unknown", rawFile(`{"a":${entry("F128", [1], [0, 16])}}`, 16), "SAFETENSORS_DTYPE"],
  [
    "a dimension is negative",
    rawFile(`{"a":${entry("U8", [-4], [0, 4])}}`, 4),
    "SAFETENSORS_SHAPE",
  ],
  [
    "a dimension is fractional",
    rawFile(`{"a":${entry("U8", [1.5], [0, 4])}}`, 4),
    "SAFETENSORS_SHAPE",
  ],
  [
    "a dimension is a string",
    rawFile('{"a":{"dtype":"U8","shape":["4"],"data_offsets":[0,4]}}', 4),
    "SAFETENSORS_SHAPE",
  ],
  [
    "a dimension is 2^53",
    rawFile(`{"a":${entry("U8", [2 ** 53], [0, 4])}}`, 4),
    "SAFETENSORS_SHAPE",
  ],
  [
    "the element count exceeds 2^53 - 1",
    rawFile(`{"a":${entry("U8", [2 ** 30, 2 ** 30], [0, 4])}}`, 4),
    "SAFETENSORS_SHAPE",
  ],
  [
    "data_offsets has one number",
    rawFile('{"a":{"dtype":"U8","shape":[0],"data_offsets":[0]}}'),
    "SAFETENSORS_OFFSETS",
  ],
  [
    "data_offsets has three numbers",
    rawFile(`{"a":${entry("U8", [4], [0, 4]).replace("4]}", "4,4]}")}}`, 4),
    "SAFETENSORS_OFFSETS",
  ],
  ["begin exceeds end", rawFile(`{"a":${entry("U8", [0], [4, 0])}}`, 4), "SAFETENSORS_OFFSETS"],
  ["begin is negative", rawFile(`{"a":${entry("U8", [4], [-1, 3])}}`, 4), "SAFETENSORS_OFFSETS"],
  ["end is fractional", rawFile(`{"a":${entry("U8", [4], [0, 4.5])}}`, 4), "SAFETENSORS_OFFSETS"],
  // Integral values in forms the reference reader refuses (it reads unsigned integers).
  [
    "a dimension is written 4.0",
    rawFile('{"a":{"dtype":"U8","shape":[4.0],"data_offsets":[0,4]}}', 4),
    "SAFETENSORS_SHAPE",
  ],
  [
    "a dimension is written 4e0",
    rawFile('{"a":{"dtype":"U8","shape":[4e0],"data_offsets":[0,4]}}', 4),
    "SAFETENSORS_SHAPE",
  ],
  [
    "begin is written -0",
    rawFile('{"a":{"dtype":"U8","shape":[4],"data_offsets":[-0,4]}}', 4),
    "SAFETENSORS_OFFSETS",
  ],
  [
    "end is written 4.0",
    rawFile('{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4.0]}}', 4),
    "SAFETENSORS_OFFSETS",
  ],
  [
    "end is a string",
    rawFile('{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,"4"]}}', 4),
    "SAFETENSORS_OFFSETS",
  ],
  [
    "end is above 2^53",
    rawFile('{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,9007199254740993]}}', 4),
    "SAFETENSORS_OFFSETS",
  ],
  [
    "the byte length is short",
    rawFile(`{"a":${entry("F32", [2], [0, 4])}}`, 4),
    "SAFETENSORS_BYTE_LENGTH",
  ],
  [
    "the byte length is long",
    rawFile(`{"a":${entry("BF16", [2], [0, 6])}}`, 6),
    "SAFETENSORS_BYTE_LENGTH",
  ],
  ["a tensor ends past the buffer", rawFile(`{"a":${U8x4}}`, 3), "SAFETENSORS_OFFSET_RANGE"],
  [
    "a scalar ends past the buffer",
    rawFile(`{"a":${entry("U8", [0], [9, 9])}}`, 0),
    "SAFETENSORS_OFFSET_RANGE",
  ],
  [
    "two tensors overlap",
    rawFile(`{"a":${U8x4},"b":${entry("U8", [4], [2, 6])}}`, 6),
    "SAFETENSORS_OVERLAP",
  ],
  ["two tensors coincide", rawFile(`{"a":${U8x4},"b":${U8x4}}`, 4), "SAFETENSORS_OVERLAP"],
  [
    "an empty tensor sits inside another",
    rawFile(`{"a":${U8x4},"z":${entry("U8", [0], [2, 2])}}`, 4),
    "SAFETENSORS_OVERLAP",
  ],
  [
    "the first tensor starts after 0",
    rawFile(`{"a":${entry("U8", [4], [1, 5])}}`, 5),
    "SAFETENSORS_GAP",
  ],
  [
    "two tensors leave a hole",
    rawFile(`{"a":${U8x4},"b":${entry("U8", [1], [5, 6])}}`, 6),
    "SAFETENSORS_GAP",
  ],
  ["bytes follow the last tensor", rawFile(`{"a":${U8x4}}`, 5), "SAFETENSORS_TRAILING_BYTES"],
  ["bytes follow an empty header", rawFile("{}", 1), "SAFETENSORS_TRAILING_BYTES"],
  ["a tensor name repeats", rawFile(`{"a":${U8x4},"a":${U8x4}}`, 4), "SAFETENSORS_DUPLICATE_KEY"],
  [
    "a tensor name repeats escaped",
    rawFile(`{"a":${U8x4},"\\u0061":${U8x4}}`, 4),
    "SAFETENSORS_DUPLICATE_KEY",
  ],
  [
    "an entry field repeats",
    rawFile('{"a":{"dtype":"U8","dtype":"U8","shape":[4],"data_offsets":[0,4]}}', 4),
    "SAFETENSORS_DUPLICATE_KEY",
  ],
  [
    "a metadata key repeats",
    rawFile('{"__metadata__":{"k":"1","k":"2"}}'),
    "SAFETENSORS_DUPLICATE_KEY",
  ],
  [
    "__metadata__ repeats",
    rawFile('{"__metadata__":{},"__metadata__":{}}'),
    "SAFETENSORS_DUPLICATE_KEY",
  ],
  ["__metadata__ is a string", rawFile('{"__metadata__":"x"}'), "SAFETENSORS_METADATA"],
  // `null` is the reference reader's None (no metadata): read, not refused (weight_metadata_test).
  ["__metadata__ is an array", rawFile('{"__metadata__":[]}'), "SAFETENSORS_METADATA"],
  ["a metadata value is a number", rawFile('{"__metadata__":{"k":1}}'), "SAFETENSORS_METADATA"],
  ["a metadata value is an object", rawFile('{"__metadata__":{"k":{}}}'), "SAFETENSORS_METADATA"],
];

for (const [what, bytes, code] of _cases) {
  Deno.test(`\`openSafetensors()\` refuses with ${code} when ${what}`, async () => {
    await rejectsWithCode(openBytes(bytes), code);
  });
}

/** A header of `n` metadata entries (values `value`) and one 4-byte U8 tensor. */
function _withMetadata(n: number, value = ""): Uint8Array {
  const meta = Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));
  return rawFile(`{"__metadata__":${JSON.stringify(meta)},"a":${U8x4}}`, 4);
}

Deno.test("`openSafetensors()` holds __metadata__ to 1,024 entries and 1 MiB of text, which it never reads", async () => {
  assert.equal(MAX_METADATA_ENTRIES, 1024);
  assert.equal((await openBytes(_withMetadata(1024))).header.tensors.length, 1);
  await rejectsWithCode(openBytes(_withMetadata(1025)), "SAFETENSORS_METADATA");
  // 2 entries "k0", "k1": 4 characters of keys, the rest values.
  const half = (MAX_METADATA_CHARS - 4) / 2;
  assert.equal((await openBytes(_withMetadata(2, "v".repeat(half)))).header.tensors.length, 1);
  await rejectsWithCode(openBytes(_withMetadata(2, "v".repeat(half + 1))), "SAFETENSORS_METADATA");
});

Deno.test("`openSafetensors()` stops the header's parse at the values `maxTensors` tensors and the metadata allowance take", async () => {
  // 1 root + 1 metadata object + 1,024 metadata values + 7 values of the tensor entry = 1,033.
  const file = _withMetadata(1024);
  assert.equal(headerValueLimit(0), 1026);
  assert.equal(headerValueLimit(1), 1042);
  assert.equal((await openBytes(file, { maxTensors: 1 })).header.tensors.length, 1);
  await rejectsWithCode(openBytes(file, { maxTensors: 0 }), "SAFETENSORS_HEADER_TOO_LARGE");
  // A flood of values is refused when the limit is met, whatever it is made of.
  const flood = rawFile(`{"a":${U8x4},"b":{"dtype":"U8","shape":[${"0,".repeat(5000)}0]}}`, 4);
  await rejectsWithCode(openBytes(flood, { maxTensors: 2 }), "SAFETENSORS_HEADER_TOO_LARGE");
  await assert.rejects(openBytes(file, { maxTensors: -1 }), RangeError);
});

Deno.test("`openSafetensors()` stops the header's parse at the values of `DEFAULT_MAX_TENSORS` tensors when not told a bound", async () => {
  // A flood in a field the format does not define had been read whole (33M values: 4.4 GB),
  // then refused as off-format. 1 root + 7 values of the entry + the field's array + n zeros.
  const limit = headerValueLimit(DEFAULT_MAX_TENSORS);
  assert.equal(DEFAULT_MAX_TENSORS, 131_072);
  const flood = (n: number) =>
    rawFile(
      `{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4],"x":[${"0,".repeat(n - 1)}0]}}`,
      4,
    );
  const kept = await openBytes(flood(limit - 9), { offFormat: "keep" });
  assert.equal(kept.header.tensors.length, 1);
  await rejectsWithCode(openBytes(flood(limit - 8)), "SAFETENSORS_HEADER_TOO_LARGE");
  // Infinity lifts the bound (for trusted bytes): the departure is what is refused then.
  await rejectsWithCode(
    openBytes(flood(limit - 8), { maxTensors: Infinity }),
    "SAFETENSORS_OFF_FORMAT",
  );
});

Deno.test("`openSafetensors()` refuses unread a header longer than `maxTensors` tensors and the metadata allowance take", async () => {
  const head = `{"a":${U8x4}}`;
  const at = (bytes: number) => rawFile(head + " ".repeat(bytes - head.length), 4);
  const limit = HEADER_BYTES_BESIDES_TENSORS + HEADER_BYTES_PER_TENSOR;
  assert.equal((await openBytes(at(limit), { maxTensors: 1 })).header.tensors.length, 1);
  await rejectsWithCode(
    openBytes(at(limit + 1), { maxTensors: 1 }),
    "SAFETENSORS_HEADER_TOO_LARGE",
  );
  assert.equal(
    (await openBytes(at(limit + 1))).header.tensors.length,
    1,
    "the default bound is far above",
  );
});

Deno.test('`openSafetensors()` with `offFormat: "keep"` reads a header as the reference reader does and names its first departure', async () => {
  const text = `\r\n {"a":{"dtype":"U8","x":{"y":[2.5]},"shape":[4],"data_offsets":[0,4]}}\r`;
  const st = await openBytes(rawFile(text, 4), { offFormat: "keep" });
  assert.deepEqual(st.header.tensors.map((t) => [t.name, t.dtype, t.shape]), [["a", "U8", [4]]]);
  assert.equal(st.header.offFormat, `header starts with "\\r", not '{'`);
  const field = await openBytes(
    rawFile('{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4],"x":1}}', 4),
    { offFormat: "keep" },
  );
  assert.equal(field.header.offFormat, "tensor 'a' has a field 'x' the format does not define");
  // The names are the file's: quoted short and printable (a quote, an escape, a bidi override
  // and 3000 characters had reached the refusal, and a result's reason, raw).
  const hostile = JSON.stringify({
    "a'\u202e": {
      dtype: "U8",
      shape: [4],
      data_offsets: [0, 4],
      ["x' \u001b[2J" + "y".repeat(3000)]: 1,
    },
  });
  const shown = (await openBytes(rawFile(hostile, 4), { offFormat: "keep" })).header.offFormat!;
  assert.ok(shown.length < 200, shown);
  assert.doesNotMatch(shown, /[\p{Cc}\p{Cf}]/u);
  assert.match(
    shown,
    /^tensor 'a\\'\\u\{202e\}' has a field 'x\\' \\u\{1b\}\[2Jy+\.\.\. \(\d+ more characters\)' the format/,
  );
  const cr = await openBytes(rawFile(`{"a":${U8x4}}\r`, 4), { offFormat: "keep" });
  assert.equal(cr.header.offFormat, "header holds a carriage return between its tokens");
  const plain = await openBytes(rawFile(`{"a":${U8x4}}  `, 4), { offFormat: "keep" });
  assert.equal(plain.header.offFormat, null);
  await rejectsWithCode(openBytes(rawFile(`{"a":${U8x4}}\r`, 4)), "SAFETENSORS_OFF_FORMAT");
});
