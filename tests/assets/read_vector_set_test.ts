/**
 * `parseVectorSet()` holds a set to what its `capture.json` says: products per case, output
 * formats and the input format (review h56: a capture claiming 10^9 products per case was read).
 */
import assert from "node:assert/strict";
import { InputError } from "../../src/errors.ts";
import { MAX_VECTOR_OUTPUTS, parseVectorSet } from "../../src/assets/mod.ts";
import { assertRejectsCode } from "../_assert_code.ts";

/** One case of K = 2 (1 * 1 + 1 * 1 + 0 = 2), with the capture.json given. */
const files = (capture: unknown) => {
  const text: Record<string, string> = {
    "a_X_bf16.txt": "3f800000 3f800000\n",
    "b_X_bf16.txt": "3f800000 3f800000\n",
    "c_X_fp32.txt": "0".repeat(32) + "\n",
    "d_X_fp32.txt": "01000000000000000000000000000000\n",
    "capture.json": JSON.stringify(capture),
  };
  return { names: Object.keys(text), read: (n: string) => Promise.resolve(text[n] as string) };
};

const output = { output_format: "fp32", accumulator: "c_file" };

Deno.test("parseVectorSet() keeps the capture's input format when it agrees with the files", async () => {
  const set = await parseVectorSet(
    "x",
    files({
      input_format: "bf16",
      products_per_case: 2,
      outputs: { "d_X_fp32.txt": output },
    }),
  );
  assert.equal(set.inputFormat, "bf16");
  assert.equal(set.k, 2);
});

Deno.test("parseVectorSet() refuses products_per_case other than the files' K", async () => {
  for (const k of [1e9, 3, 0, -2, 2.5, "2"]) {
    await assertRejectsCode(
      () =>
        parseVectorSet(
          "x",
          files({ products_per_case: k, outputs: { "d_X_fp32.txt": output } }),
        ),
      InputError,
      "VECTOR_SET_CAPTURE",
    );
  }
});

Deno.test("parseVectorSet() refuses an unknown input format or a contradicted output format", async () => {
  for (
    const capture of [
      { input_format: "fp64", outputs: { "d_X_fp32.txt": output } },
      { input_format: 16, outputs: { "d_X_fp32.txt": output } },
      { outputs: { "d_X_fp32.txt": { ...output, output_format: "fp16" } } },
      { outputs: { "d_X_fp32.txt": { ...output, output_format: "fp64" } } },
    ]
  ) {
    await assertRejectsCode(
      () => parseVectorSet("x", files(capture)),
      InputError,
      "VECTOR_SET_CAPTURE",
    );
  }
});

Deno.test("parseVectorSet() refuses more than MAX_VECTOR_OUTPUTS output files before reading any", async () => {
  // Each output is read (up to 64 MiB) and checked: 100 outputs of a 2M-case set ran 300 s.
  const many = (count: number, name: (i: number) => string) => {
    const set = files({ outputs: {} });
    const extra = Array.from({ length: count - 1 }, (_, i) => name(i));
    const read: string[] = [];
    const text = (n: string) => extra.includes(n) ? "01000000000000000000000000000000\n" : null;
    return {
      read,
      files: {
        names: [...set.names, ...extra],
        read: (n: string) => {
          read.push(n);
          return Promise.resolve(text(n) ?? set.read(n));
        },
      },
    };
  };
  assert.equal(MAX_VECTOR_OUTPUTS, 16);
  const most = many(MAX_VECTOR_OUTPUTS, (i) => `d_Y${i}_fp16.txt`);
  assert.equal((await parseVectorSet("x", most.files)).outputs.length, MAX_VECTOR_OUTPUTS);
  const over = many(MAX_VECTOR_OUTPUTS + 1, (i) => `d_\u001b[2J\u202e${i}_fp32.txt`);
  const e = await parseVectorSet("x\ny", over.files).catch((e) => e);
  assert.ok(e instanceof InputError && e.code === "VECTOR_SET_LAYOUT", String(e));
  assert.deepEqual(over.read, []);
  assert.match(e.message, /17 d_\* output files .*above the 16/);
  // The names are the folder's: one printable line.
  assert.doesNotMatch(e.message, /[\p{Cc}\p{Cf}]/u);
});
