/**
 * Weight blobs written after the verifier hashed them: a falsified record (it claims checkpoint
 * X; its fingerprint is of other weights Y) must never PASS because Y was written into X's file
 * in place between the hash and the reads, even with the file's times put back. The reads are
 * checked against the chunks hashed at open, and the command stops with BLOB_CHANGED.
 */
import assert from "node:assert/strict";
import { type BlobStore, openBlobStore } from "../../src/assets/mod.ts";
import type { ModelForwardWorkload } from "../../src/claims/mod.ts";
import { InputError } from "../../src/errors.ts";
import { sha256Hex } from "../../src/sha256_hex.ts";
import { digestOfFiles } from "../../src/model/mod.ts";
import { verifyRecord } from "../../src/verify/mod.ts";
import { engineWalker } from "../model/forward/_forward_fixture.ts";
import { assertRejectsCode } from "../_assert_code.ts";
import { tempDir } from "../_temp.ts";
import { attention, chainLog, forwardScenario, proverRun, store } from "./_recompute_fixture.ts";

const out = await proverRun(forwardScenario([], 2));
const honest = out.records[1]!.predicate;
const w = honest.workload as ModelForwardWorkload;
const [[, wsha]] = Object.entries(w.model.files) as [[string, string]];
const X = out.blobs.get(wsha)!;
// Y: X with the final norm's weights (the buffer's last 512 bytes) changed, the same size.
const Y = X.slice();
for (let i = Y.length - 512; i < Y.length; i += 2) Y[i + 1] = 0x40;

const verify = (p: typeof honest, blobs: BlobStore) =>
  verifyRecord({ store, blobs, walker: engineWalker, attention }, {
    log: chainLog([p]),
    index: 0,
  });

async function inPlace(path: string, bytes: Uint8Array): Promise<void> {
  const before = await Deno.stat(path);
  const f = await Deno.open(path, { write: true });
  await f.write(bytes);
  f.close();
  await Deno.utime(path, before.atime!, before.mtime!);
}

Deno.test("a weight blob written in place after it was hashed stops the audit (BLOB_CHANGED) instead of a PASS on other weights", async () => {
  const dir = await tempDir({ prefix: "bitaudit-changed-" });
  for (const [d, b] of out.blobs) await Deno.writeFile(`${dir}/${d}`, b);
  const path = `${dir}/${wsha}`;
  // The fingerprint that weights Y give: the same record naming Y's file.
  const yDigest = sha256Hex(Y);
  await Deno.writeFile(`${dir}/${yDigest}`, Y);
  const yFiles = { [Object.keys(w.model.files)[0]!]: yDigest };
  const yModel = { ...w.model, files: yFiles, checkpointSha256: digestOfFiles(yFiles) };
  const onYRecord = await verify(
    { ...honest, workload: { ...w, model: yModel } },
    openBlobStore(dir),
  );
  assert.ok(onYRecord.recomputed !== undefined, onYRecord.reason);
  const falsified = {
    ...honest,
    fingerprint: { ...honest.fingerprint, sha256: onYRecord.recomputed! },
  };
  assert.equal((await verify(falsified, openBlobStore(dir))).status, "FAIL");
  // One store, as in one audit: an honest record hashes X; Y is written in place with the
  // times put back; the falsified record's reads are refused, never judged.
  const shared = openBlobStore(dir);
  assert.equal((await verify(honest, shared)).status, "PASS");
  await inPlace(path, Y);
  await assertRejectsCode(() => verify(falsified, shared), InputError, "BLOB_CHANGED");
  await Deno.remove(dir, { recursive: true });
});
