import assert from "node:assert/strict";
import fc from "fast-check";
import type { SafetensorsTensorInput } from "../../../src/model/safetensors/check_writer_input.ts";
import { encodeSafetensors } from "../../../src/model/safetensors/encode_safetensors.ts";
import {
  SAFETENSORS_DTYPE_BYTES,
  SAFETENSORS_DTYPES,
} from "../../../src/model/safetensors/safetensors_dtype.ts";
import { openBytes } from "./_raw_file.ts";

const _tensor = (name: string): fc.Arbitrary<SafetensorsTensorInput> =>
  fc.record({
    dtype: fc.constantFrom(...SAFETENSORS_DTYPES),
    shape: fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 3 }),
  }).chain(({ dtype, shape }) => {
    const n = shape.reduce((a, b) => a * b, 1) * SAFETENSORS_DTYPE_BYTES[dtype];
    return fc.uint8Array({ minLength: n, maxLength: n }).map((data) => ({
      name,
      dtype,
      shape,
      data,
    }));
  });

const _names = fc.uniqueArray(
  fc.string({ unit: "binary", maxLength: 6 }).filter((s) => s !== "__metadata__"),
  { maxLength: 6 },
);

const _file = fc.record({
  tensors: _names.chain((names) => fc.tuple(...names.map(_tensor))),
  metadata: fc.option(fc.dictionary(fc.string({ unit: "binary" }), fc.string({ unit: "binary" })), {
    nil: undefined,
  }),
});

Deno.test("`encodeSafetensors()` and `openSafetensors()` are inverse when given random tensors", async () => {
  await fc.assert(
    fc.asyncProperty(_file, async ({ tensors, metadata }) => {
      const options = metadata === undefined ? {} : { metadata };
      const bytes = encodeSafetensors(tensors, options);
      const file = await openBytes(bytes);
      assert.equal(file.header.headerByteLength % 8, 0);
      assert.equal(file.header.tensors.length, tensors.length);
      assert.deepEqual({ ...file.metadata }, { ...(metadata ?? {}) });
      const decoded: SafetensorsTensorInput[] = [];
      for (const t of tensors) {
        const e = file.entry(t.name);
        assert.equal(e.dtype, t.dtype);
        assert.deepEqual(e.shape, t.shape);
        const data = await file.tensor(t.name);
        assert.deepEqual(data, t.data);
        decoded.push({ name: e.name, dtype: e.dtype, shape: e.shape, data });
      }
      // The encoding is canonical: re-encoding what was read gives the same bytes.
      assert.deepEqual(encodeSafetensors(decoded.reverse(), options), bytes);
    }),
    { numRuns: 300, seed: 0x5afe },
  );
});
