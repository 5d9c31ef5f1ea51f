/**
 * Issue 25, item 2: sizes are checked before anything is read. A 2 GiB serving history whose
 * digest matches was read and hashed whole (20 s, 4.3 GB) before its parser refused it; now every
 * blob kind has a limit checked on the file's size (`BLOB_MAX_BYTES`), and so do the JSON files of
 * a checkpoint directory. The files are sparse (`Deno.truncate`): 2 GiB of zeros that cost no disk,
 * named by their true SHA-256, so only the size check can refuse them quickly.
 */
import assert from "node:assert/strict";
import {
  BLOB_MAX_BYTES,
  type BlobHasher,
  checkpointDir,
  openBlobStore,
} from "../../src/assets/mod.ts";
import { InputError } from "../../src/errors.ts";
import { openDecoderCheckpoint } from "../../src/model/mod.ts";
import { assertRejectsCode } from "../_assert_code.ts";
import { memFiles, synthDir, TINY_DENSE } from "../model/checkpoint/_checkpoint_fixture.ts";

const GiB = 1024 ** 3;
/** SHA-256 of 2^31 zero bytes (`head -c $((1<<31)) /dev/zero | sha256sum`). */
const ZEROS_2GIB = "a7c744c13cc101ed66c29f672f92455547889cc586ce6d44fe76ae824958ea51";

async function sparse(path: string, size: number): Promise<void> {
  await Deno.writeFile(path, new Uint8Array());
  await Deno.truncate(path, size);
}

/** A hasher that records how many bytes it was given (none, when a blob is refused first). */
function countingHasher(): { hasher: () => BlobHasher; bytes: () => number } {
  let n = 0;
  return {
    hasher: () => ({ update: (b) => void (n += b.length), hex: () => "" }),
    bytes: () => n,
  };
}

/** Runs `fn`, asserting that it took under a second and grew the heap by under 64 MiB. */
async function cheaply(fn: () => Promise<void>): Promise<void> {
  const before = Deno.memoryUsage();
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  const after = Deno.memoryUsage();
  assert.ok(ms < 1000, `took ${ms.toFixed(0)} ms`);
  assert.ok(after.external - before.external < 64 << 20, "allocated the blob");
}

Deno.test("BlobStore refuses a 2 GiB blob with a matching digest by its size, before reading it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-oversized-" });
  try {
    await sparse(`${dir}/${ZEROS_2GIB}`, 2 * GiB);
    const count = countingHasher();
    const blobs = openBlobStore(dir, { hasher: count.hasher });
    for (const maxBytes of [BLOB_MAX_BYTES.history, BLOB_MAX_BYTES.config, 2 * GiB - 1]) {
      await cheaply(() =>
        assertRejectsCode(() => blobs.get(ZEROS_2GIB, { maxBytes }), InputError, "BLOB_TOO_LARGE")
      );
    }
    await cheaply(() =>
      assertRejectsCode(
        () => blobs.open!(ZEROS_2GIB, { maxBytes: BLOB_MAX_BYTES.checkpointIndex }),
        InputError,
        "BLOB_TOO_LARGE",
      )
    );
    // A store's own limit holds for every call, and a call cannot raise it.
    const small = openBlobStore(dir, { maxBytes: GiB, maxOpenBytes: GiB, hasher: count.hasher });
    await cheaply(() =>
      assertRejectsCode(() => small.get(ZEROS_2GIB), InputError, "BLOB_TOO_LARGE")
    );
    await cheaply(() =>
      assertRejectsCode(
        () => small.open!(ZEROS_2GIB, { maxBytes: BLOB_MAX_BYTES.weights }),
        InputError,
        "BLOB_TOO_LARGE",
      )
    );
    assert.equal(count.bytes(), 0); // not a byte hashed
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("BlobStore refuses a blob that is no regular file without opening it (a FIFO would block)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-oversized-" });
  try {
    const blobs = openBlobStore(dir);
    await Deno.mkdir(`${dir}/${"0".repeat(64)}`);
    await assertRejectsCode(() => blobs.get("0".repeat(64)), InputError, "BLOB_READ");
    const fifo = `${dir}/${"1".repeat(64)}`;
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output().catch(() => null);
    if (made?.success) {
      await assertRejectsCode(() => blobs.get("1".repeat(64)), InputError, "BLOB_READ");
      await assertRejectsCode(() => blobs.open!("1".repeat(64)), InputError, "BLOB_READ");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openDecoderCheckpoint() refuses a 2 GiB config.json or index of a directory before reading it", async () => {
  const files = synthDir(TINY_DENSE, { shards: 2 });
  for (const big of ["config.json", "model.safetensors.index.json"]) {
    const dir = await Deno.makeTempDir({ prefix: "bitaudit-oversized-" });
    try {
      for (const [name, bytes] of files) await Deno.writeFile(`${dir}/${name}`, bytes);
      await sparse(`${dir}/${big}`, 2 * GiB);
      using ckpt = await checkpointDir(dir);
      await cheaply(() =>
        assertRejectsCode(() => openDecoderCheckpoint(ckpt), InputError, "CHECKPOINT_JSON")
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
  // The same directory opens with its own files (the refusal above is the size alone).
  await openDecoderCheckpoint(memFiles(files));
});
