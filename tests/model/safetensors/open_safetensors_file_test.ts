import assert from "node:assert/strict";
import { fileByteSource } from "../../../src/assets/file_byte_source.ts";
import type { ByteSource } from "../../../src/model/safetensors/byte_source.ts";
import type { SafetensorsTensorInput } from "../../../src/model/safetensors/check_writer_input.ts";
import { encodeSafetensorsChunks } from "../../../src/model/safetensors/encode_safetensors_chunks.ts";
import { openSafetensors } from "../../../src/model/safetensors/open_safetensors.ts";

const MIB = 1024 * 1024;

/** Deterministic content for tensor `k`: byte i is a function of (k, i). */
function _pattern(k: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + k * 97 + (i >>> 13)) & 0xff;
  return out;
}

Deno.test("`openSafetensors()` reads a 64 MiB file one tensor at a time through `fileByteSource()`", async () => {
  const dtypes = ["BF16", "F32", "U8", "F16", "I64", "F8_E4M3", "I32", "BOOL"] as const;
  const size = { BF16: 2, F32: 4, U8: 1, F16: 2, I64: 8, F8_E4M3: 1, I32: 4, BOOL: 1 };
  const tensors: SafetensorsTensorInput[] = dtypes.map((dtype, k) => ({
    name: `layers.${k}.weight`,
    dtype,
    shape: [1024, (8 * MIB) / 1024 / size[dtype]],
    data: _pattern(k, 8 * MIB),
  }));
  const path = await Deno.makeTempFile({ suffix: ".safetensors" });
  try {
    const chunks = encodeSafetensorsChunks(tensors, { metadata: { format: "pt" } });
    {
      using out = await Deno.open(path, { write: true, truncate: true });
      for (const chunk of chunks) {
        let done = 0;
        while (done < chunk.length) done += await out.write(chunk.subarray(done));
      }
    }
    using file = await fileByteSource(path);
    assert.equal(file.size, chunks.byteLength);
    assert.ok(file.size > 64 * MIB);
    let requested = 0;
    let largest = 0;
    const counting: ByteSource = {
      size: file.size,
      read: (offset, length) => {
        requested += length;
        largest = Math.max(largest, length);
        return file.read(offset, length);
      },
    };
    const st = await openSafetensors(counting);
    assert.equal(requested, st.header.dataStart); // prefix + header only
    assert.equal(st.metadata.format, "pt");
    for (const [k, t] of tensors.entries()) {
      const bytes = await st.tensor(t.name);
      assert.ok(bytes.every((b, i) => b === (t.data as Uint8Array)[i]), t.name);
      assert.equal(requested, st.header.dataStart + (k + 1) * 8 * MIB);
    }
    assert.equal(requested, file.size);
    assert.equal(largest, 8 * MIB);
  } finally {
    await Deno.remove(path);
  }
});
