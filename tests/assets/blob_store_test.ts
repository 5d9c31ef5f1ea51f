import assert from "node:assert/strict";
import { BLOB_MAX_BYTES, type BlobHasher, openBlobStore } from "../../src/assets/mod.ts";
import { VERIFIED_CHUNK } from "../../src/assets/verified_source.ts";
import { MAX_HISTORY_BYTES } from "../../src/claims/mod.ts";
import { MAX_CONFIG_JSON_BYTES, MAX_INDEX_JSON_BYTES } from "../../src/model/checkpoint/mod.ts";
import { sha256Hex } from "../../src/sha256_hex.ts";
import { InputError } from "../../src/errors.ts";
import { assertRejectsCode } from "../_assert_code.ts";
import { tempDir } from "../_temp.ts";

const dir = await tempDir({ prefix: "bitaudit-blobs-" });
const bytes = new Uint8Array(40_000).map((_, i) => (i * 31) & 0xff);
const digest = sha256Hex(bytes);
await Deno.writeFile(`${dir}/${digest}`, bytes);

/** A hasher that counts the hashes it finishes, over the portable SHA-256. */
function countingHasher(): { hasher: () => BlobHasher; finished: () => number } {
  let n = 0;
  return {
    hasher: () => {
      const parts: Uint8Array[] = [];
      return {
        update: (b) => void parts.push(b.slice()),
        hex: () => {
          n++;
          const all = new Uint8Array(parts.reduce((t, p) => t + p.length, 0));
          let at = 0;
          for (const p of parts) all.set(p, (at += p.length) - p.length);
          return sha256Hex(all);
        },
      };
    },
    finished: () => n,
  };
}

Deno.test("BlobStore.open() hashes through the handle once per unchanged file and reads in place", async () => {
  const count = countingHasher();
  const store = openBlobStore(dir, { hasher: count.hasher });
  using a = (await store.open!(digest))!;
  assert.equal(count.finished(), 2); // the whole file and its one chunk
  assert.equal(a.size, bytes.length);
  const into = new Uint8Array(new SharedArrayBuffer(100));
  await a.readInto(1000, into);
  assert.deepEqual([...into], [...bytes.subarray(1000, 1100)]);
  assert.equal(count.finished(), 3); // the read's chunk, checked again
  using b = (await store.open!(digest))!;
  assert.equal(count.finished(), 3); // the second open trusted the first check
  assert.deepEqual(await b.read(0, 8), bytes.subarray(0, 8));
  assert.equal(await store.open!("0".repeat(64)), null); // absent
  assert.equal(await store.open!("../etc/passwd"), null); // not a digest
});

Deno.test("BlobStore.open() refuses a blob whose bytes do not hash to its name, and one over the limit", async () => {
  const bad = `${"ab".repeat(32)}`;
  await Deno.writeFile(`${dir}/${bad}`, bytes);
  const store = openBlobStore(dir);
  await assertRejectsCode(() => store.open!(bad), InputError, "BLOB_DIGEST_MISMATCH");
  await assertRejectsCode(
    () => openBlobStore(dir, { maxOpenBytes: 100 }).open!(digest),
    InputError,
    "BLOB_TOO_LARGE",
  );
  // A file rewritten after its check is hashed again (new modification time or size).
  const count = countingHasher();
  const s2 = openBlobStore(dir, { hasher: count.hasher });
  (await s2.open!(digest))!.close();
  const changed = bytes.slice();
  changed[7] = changed[7]! ^ 1;
  await Deno.writeFile(`${dir}/${digest}`, changed.subarray(0, changed.length - 1));
  await assertRejectsCode(() => s2.open!(digest), InputError, "BLOB_DIGEST_MISMATCH");
  assert.equal(count.finished(), 4); // whole and chunk, twice
  await Deno.writeFile(`${dir}/${digest}`, bytes);
});

Deno.test("BlobStore.get() checks whole blobs with the injected hasher", async () => {
  const count = countingHasher();
  const store = openBlobStore(dir, { hasher: count.hasher });
  assert.deepEqual(await store.get(digest), bytes);
  assert.equal(count.finished(), 1);
});

Deno.test("BlobStore.get() and open() refuse a blob over the call's limit without hashing it", async () => {
  const count = countingHasher();
  const store = openBlobStore(dir, { hasher: count.hasher });
  const size = bytes.length;
  await assertRejectsCode(
    () => store.get(digest, { maxBytes: size - 1 }),
    InputError,
    "BLOB_TOO_LARGE",
  );
  await assertRejectsCode(
    () => store.open!(digest, { maxBytes: size - 1 }),
    InputError,
    "BLOB_TOO_LARGE",
  );
  assert.equal(count.finished(), 0);
  assert.deepEqual(await store.get(digest, { maxBytes: size }), bytes); // the limit is inclusive
  (await store.open!(digest, { maxBytes: size }))!.close();
  assert.equal(count.finished(), 3); // get's, then open's whole file and one chunk
  // A call lowers the store's limit, never raises it.
  const capped = openBlobStore(dir, { maxBytes: size - 1, maxOpenBytes: size - 1 });
  await assertRejectsCode(
    () => capped.get(digest, { maxBytes: BLOB_MAX_BYTES.tensor }),
    InputError,
    "BLOB_TOO_LARGE",
  );
  await assertRejectsCode(() => capped.open!(digest), InputError, "BLOB_TOO_LARGE");
  assert.equal(await capped.get("0".repeat(64), { maxBytes: 0 }), null); // absent stays absent
  assert.throws(() => openBlobStore(dir, { maxBytes: -1 }), RangeError);
  await assert.rejects(() => store.get(digest, { maxBytes: Number.NaN }), RangeError);
  // A product past 2^53 (elements x width of a huge claimed tensor) limits nothing extra.
  assert.deepEqual(await store.get(digest, { maxBytes: 2 ** 62 }), bytes);
});

Deno.test("BLOB_MAX_BYTES matches the limits of the parsers that read each kind", () => {
  assert.equal(BLOB_MAX_BYTES.history, MAX_HISTORY_BYTES);
  assert.equal(BLOB_MAX_BYTES.config, MAX_CONFIG_JSON_BYTES);
  assert.equal(BLOB_MAX_BYTES.checkpointIndex, MAX_INDEX_JSON_BYTES);
  // The defaults of a store opened without limits are unchanged (4 GiB whole, 256 GiB opened).
  assert.equal(BLOB_MAX_BYTES.tensor, 4 * 1024 ** 3);
  assert.equal(BLOB_MAX_BYTES.weights, 256 * 1024 ** 3);
});

Deno.test("BlobStore: a blob is absent only from a folder that is there; a missing or non-folder path is INPUT_MISSING", async () => {
  const store = openBlobStore(dir);
  assert.equal(await store.get("0".repeat(64)), null);
  assert.equal(await store.open!("0".repeat(64)), null);
  await Deno.symlink(`${dir}/loop-a`, `${dir}/loop-b`);
  await Deno.symlink(`${dir}/loop-b`, `${dir}/loop-a`);
  for (const path of [`${dir}/no-such-folder`, `${dir}/${digest}`, `${dir}/loop-a`]) {
    const wrong = openBlobStore(path);
    await assertRejectsCode(() => wrong.get(digest), InputError, "INPUT_MISSING");
    await assertRejectsCode(() => wrong.open!(digest), InputError, "INPUT_MISSING");
  }
});

Deno.test("BlobStore.open(): every read is checked against the chunks hashed at open, so bytes written in place afterwards are refused (BLOB_CHANGED), even with the modification time put back", async () => {
  const chunk = VERIFIED_CHUNK;
  const big = new Uint8Array(3 * chunk + 12_345).map((_, i) => (i * 7 + (i >> 11)) & 0xff);
  const d = sha256Hex(big);
  const path = `${dir}/${d}`;
  await Deno.writeFile(path, big);
  const store = openBlobStore(dir);
  using src = (await store.open!(d))!;
  // Reads inside one chunk, across boundaries, whole chunks, the tail, and empty.
  for (
    const [at, n] of [
      [0, 8],
      [chunk - 3, 10],
      [chunk, chunk],
      [5, 2 * chunk + 9],
      [
        3 * chunk,
        12_345,
      ],
      [big.length - 1, 1],
      [17, 0],
    ] as const
  ) {
    assert.deepEqual(await src.read(at, n), big.subarray(at, at + n), `${at}+${n}`);
    const into = new Uint8Array(n);
    await src.readInto(at, into);
    assert.deepEqual(into, big.subarray(at, at + n), `into ${at}+${n}`);
  }
  await assert.rejects(() => src.read(big.length - 1, 2), RangeError);
  // A writer changes one byte of the second chunk in place, then puts the times back.
  const before = await Deno.stat(path);
  const f = await Deno.open(path, { write: true });
  await f.seek(chunk + 100, Deno.SeekMode.Start);
  await f.write(new Uint8Array([big[chunk + 100]! ^ 1]));
  f.close();
  await Deno.utime(path, before.atime!, before.mtime!);
  assert.deepEqual(await src.read(0, 8), big.subarray(0, 8)); // the first chunk is unchanged
  await assertRejectsCode(() => src.read(chunk + 90, 20), InputError, "BLOB_CHANGED");
  await assertRejectsCode(() => src.read(0, 3 * chunk), InputError, "BLOB_CHANGED");
  // The same store opens it again without hashing it whole (same size, time and inode): its
  // reads are still checked against the first hash.
  using again = (await store.open!(d))!;
  await assertRejectsCode(
    () => again.readInto(chunk, new Uint8Array(chunk)),
    InputError,
    "BLOB_CHANGED",
  );
  await Deno.remove(path);
});

Deno.test("BlobStore.open(): the process's open-file limit is the host's (HostResourceError 'files'), never an unreadable blob", async () => {
  const many = await tempDir({ prefix: "bitaudit-many-" });
  for (let i = 0; i < 80; i++) {
    const b = new Uint8Array([i, i >> 8, 7]);
    await Deno.writeFile(`${many}/${sha256Hex(b)}`, b);
  }
  const script = new URL("./_open_many.ts", import.meta.url).pathname;
  const run = async (limit: number) => {
    const out = await new Deno.Command("bash", {
      args: [
        "-c",
        `ulimit -n ${limit} && exec "$0" run --allow-read --no-check "$1" "$2" 80`,
        Deno.execPath(),
        script,
        many,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    return new TextDecoder().decode(out.stdout).trim() + new TextDecoder().decode(out.stderr);
  };
  assert.equal(await run(1024), "opened 80");
  assert.match(
    await run(60),
    /^host files: Cannot open blob '.*': this process has too many files open/,
  );
  await Deno.remove(many, { recursive: true });
});
