/**
 * A committed tensor's blob is hashed without being held only up to the bytes a tensor within the
 * verifier's element limit can have (`_hashedTensorBytes`), whatever the record's shape: a tiny
 * shape with a blob of the store's 4 GiB (review h190's cost, ~20 s of hashing a tensor, which no
 * budget bounds) is refused by its size before a byte is hashed and FAILs as the prover's unmet
 * obligation, read whole (`_tensorBytes`) or checked unheld for a refused record
 * (`_checkTensorUnheld`).
 */
import assert from "node:assert/strict";
import type { BlobStore } from "../../src/assets/mod.ts";
import { InputError } from "../../src/errors.ts";
import { _Stop, _tensor16 } from "../../src/verify/_stop.ts";
import { _checkTensorUnheld } from "../../src/verify/_unheld_tensor.ts";

const MIB = 2 ** 20;

/** A store holding one blob of `size` bytes, refusing by size as the file store does. */
function sizedBlob(size: number): { blobs: BlobStore; asked: number[] } {
  const asked: number[] = [];
  const tooLarge = () =>
    Promise.reject(new InputError("BLOB_TOO_LARGE", "Cannot read blob: too large"));
  const blobs: BlobStore = {
    dir: "memory",
    get: (_d, o) =>
      size > (o?.maxBytes ?? Infinity) ? tooLarge() : Promise.reject(new Error("held")),
    open: (_d, o) => {
      asked.push(o?.maxBytes ?? Infinity);
      if (size > (o?.maxBytes ?? Infinity)) return tooLarge();
      return Promise.resolve({
        size,
        read: () => Promise.reject(new Error("not read")),
        readInto: () => Promise.reject(new Error("not read")),
        close: () => {},
        [Symbol.dispose]: () => {},
      });
    },
  };
  return { blobs, asked };
}

async function assertUnmet(check: () => Promise<unknown>): Promise<void> {
  await assert.rejects(check, (e: unknown) => {
    assert.ok(e instanceof _Stop);
    assert.equal(e.status, "FAIL");
    assert.equal(e.obligation, "committed-input");
    assert.match(e.why, /is larger than the 2 bytes its shape holds/);
    return true;
  });
}

Deno.test("a one-element tensor with a 600 MiB blob is not hashed past a tensor the verifier holds: FAIL, the prover's obligation", async () => {
  const t = { digest: "ab".repeat(32), shape: [1, 1], what: "input" };
  // Read whole: refused by size, then opened only up to 2^28 BF16 elements (512 MiB).
  const whole = sizedBlob(600 * MIB);
  await assertUnmet(() => _tensor16(whole.blobs, t));
  assert.deepEqual(whole.asked, [2 ** 28 * 2]);
  // Checked unheld (a refused record): likewise.
  const unheld = sizedBlob(600 * MIB);
  await assertUnmet(() => _checkTensorUnheld(unheld.blobs, { ...t, width: 2 }));
  assert.deepEqual(unheld.asked, [2 ** 28 * 2]);
  // Within that, a longer blob that hashes is still the record's contradiction, bytes against bytes.
  const within = sizedBlob(4);
  await assert.rejects(
    () => _checkTensorUnheld(within.blobs, { ...t, width: 2 }),
    /record contradicts its input tensor: 4 bytes, its shape \[1, 1\] of 16-bit elements holds 2/,
  );
});
