import assert from "node:assert/strict";
import { fileByteSource } from "../../src/assets/file_byte_source.ts";
import { type InputCode, InputError } from "../../src/errors.ts";
import { isCode } from "../_assert_code.ts";

const _isCode = (code: InputCode) => isCode(InputError, code);

async function _withFile(bytes: Uint8Array, body: (path: string) => Promise<void>): Promise<void> {
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeFile(path, bytes);
    await body(path);
  } finally {
    await Deno.remove(path);
  }
}

const _DATA = new Uint8Array(4096).map((_, i) => (i * 7) & 0xff);

Deno.test("`fileByteSource()` reads the asked range when given offsets and lengths", async () => {
  await _withFile(_DATA, async (path) => {
    using src = await fileByteSource(path);
    assert.equal(src.size, 4096);
    assert.deepEqual(await src.read(100, 50), _DATA.subarray(100, 150));
    assert.deepEqual(await src.read(4096, 0), new Uint8Array(0));
    assert.deepEqual(await src.read(0, 4096), _DATA);
  });
});

Deno.test("`fileByteSource()` keeps concurrent reads apart when they are issued together", async () => {
  await _withFile(_DATA, async (path) => {
    using src = await fileByteSource(path);
    const ranges = Array.from({ length: 40 }, (_, k) => [(k * 613) % 4000, 1 + ((k * 37) % 96)]);
    const got = await Promise.all(ranges.map(([o, n]) => src.read(o!, n!)));
    got.forEach((bytes, k) => {
      const [o, n] = ranges[k]!;
      assert.deepEqual(bytes, _DATA.subarray(o!, o! + n!));
    });
  });
});

Deno.test("`fileByteSource()` rejects with RangeError when the range is invalid", async () => {
  await _withFile(_DATA, async (path) => {
    using src = await fileByteSource(path);
    await assert.rejects(src.read(4000, 97), RangeError);
    await assert.rejects(src.read(-1, 1), RangeError);
    await assert.rejects(src.read(0.5, 1), RangeError);
    assert.equal((await src.read(0, 1))[0], 0); // the queue survives a failed read
  });
});

Deno.test("`fileByteSource()` refuses with FILE_OPEN when the path is missing or a directory", async () => {
  await assert.rejects(fileByteSource("/nonexistent/bitaudit/x.safetensors"), _isCode("FILE_OPEN"));
  const dir = await Deno.makeTempDir();
  try {
    await assert.rejects(fileByteSource(dir), _isCode("FILE_OPEN"));
  } finally {
    await Deno.remove(dir);
  }
});

Deno.test("`fileByteSource()` refuses with FILE_SHORT_READ when the file shrinks after opening", async () => {
  await _withFile(_DATA, async (path) => {
    using src = await fileByteSource(path);
    await Deno.truncate(path, 1000);
    await assert.rejects(src.read(900, 200), _isCode("FILE_SHORT_READ"));
  });
});

Deno.test("`fileByteSource()` refuses with FILE_CLOSED when read after close", async () => {
  await _withFile(_DATA, async (path) => {
    const src = await fileByteSource(path);
    src.close();
    src.close();
    await assert.rejects(src.read(0, 1), _isCode("FILE_CLOSED"));
  });
});

Deno.test("`fileByteSource()` refuses a FIFO without waiting for a writer", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-fifo-" });
  try {
    const fifo = `${dir}/fifo`;
    const r = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.equal(r.code, 0);
    await assert.rejects(fileByteSource(fifo), isCode(InputError, "FILE_OPEN" as InputCode));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
