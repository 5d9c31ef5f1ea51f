/**
 * The committed files of `claims append` in the blob folder: each file is hashed where it is;
 * when the folder already holds a blob of that digest (checked), that blob is used and nothing is
 * copied (a checkpoint of tens of GB is stored once, not copied again by every append). Otherwise
 * it is copied in under a temporary name and hashed there (the digest the record commits to is
 * the digest of the bytes stored, even if the source changes meanwhile), then moved to its digest
 * name. A blob already there is checked, never replaced: same bytes are kept, other bytes are
 * refused.
 *
 * @module
 */
import { openBlobStore } from "../../assets/mod.ts";
import { InputError } from "../../errors.ts";
import { removeOnInterrupt } from "../cleanup.ts";
import { nativeSha256 } from "../native_sha256.ts";
import { syncFolder } from "./claims_append_log.ts";

/** A file copied into the blob folder under a temporary name, hashed, not yet committed. */
export interface StagedBlob {
  /** The source file's name (e.g. `config.json`). */
  readonly name: string;
  /** The temporary copy. */
  readonly path: string;
  /** SHA-256 of the copy's bytes (lowercase hex). */
  readonly sha256: string;
  /** The folder already held this blob: `path` is the stored blob, and nothing was copied. */
  readonly stored?: true;
  /** Removes the copy if it is still there (safe to call twice). */
  readonly discard: () => Promise<void>;
}

/**
 * Age after which a staged copy is taken for the leftover of a killed append: no append copies or
 * hashes one file for a day, and the folder may be shared by the appends of several logs (each
 * under its own lock), so a younger copy may be in use.
 */
export const STALE_STAGED_MS = 24 * 3600 * 1000;

/**
 * Removes staged copies that killed appends left in a blob folder (`.staged-<uuid>` files not
 * modified for {@link STALE_STAGED_MS}); best effort: what cannot be read or removed is left.
 *
 * @param dir the blob folder
 * @param now the current time in ms (default `Date.now()`)
 * @returns the names removed
 * @example
 * ```ts ignore
 * await removeStaleStaged("log/blobs");
 * ```
 */
export async function removeStaleStaged(dir: string, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.isFile || !/^\.staged-[0-9a-f-]{36}$/.test(e.name)) continue;
      const path = `${dir}/${e.name}`;
      try {
        const info = await Deno.lstat(path);
        if (!info.isFile || info.mtime === null || now - info.mtime.getTime() < STALE_STAGED_MS) {
          continue;
        }
        await Deno.remove(path);
        removed.push(e.name);
      } catch (err) {
        if (err instanceof Deno.errors.NotCapable) throw err;
      }
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) throw err; // an unreadable folder: nothing to tidy
  }
  return removed;
}

/** Bytes hashed per read. */
const _CHUNK = 16 << 20;

/**
 * Stages a file for the blob folder: the stored blob when the folder holds its digest already
 * (checked, nothing copied), else a copy under a temporary name, hashed.
 *
 * @param source the file to commit
 * @param o `dir`: the blob folder (must exist); `name`: the file's name in the checkpoint
 * @returns the staged blob (discard it, or commit it with {@link commitBlob})
 * @throws {InputError} `INPUT_MISSING` when the file cannot be read, `OUTPUT_WRITE` when its copy
 *   cannot be written, `BLOB_DIGEST_MISMATCH` when the folder holds other bytes under its digest
 * @example
 * ```ts ignore
 * const s = await stageBlob("ckpt/config.json", { dir: "log/blobs", name: "config.json" });
 * ```
 */
export async function stageBlob(
  source: string,
  o: { readonly dir: string; readonly name: string },
): Promise<StagedBlob> {
  let digest: string;
  try {
    digest = await _hashFile(source);
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) throw e;
    // A checkpoint file that is not there (or cannot be read) is the input's fault, not the output's.
    throw new InputError(
      "INPUT_MISSING",
      `Cannot read '${source}': ${(e as Error).message.split("\n")[0]}`,
    );
  }
  if (await _present(o.dir, digest)) {
    const stored = `${o.dir}/${digest}`;
    return { name: o.name, path: stored, sha256: digest, stored: true, discard: async () => {} };
  }
  const path = `${o.dir}/.staged-${crypto.randomUUID()}`;
  const release = removeOnInterrupt(path);
  const discard = () => release(true);
  try {
    await Deno.copyFile(source, path);
    {
      using copy = await Deno.open(path, { read: true });
      await copy.syncData(); // on the disk before the log line that names it
    }
    return { name: o.name, path, sha256: await _hashFile(path), discard };
  } catch (e) {
    await discard();
    if (e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError(
      "OUTPUT_WRITE",
      `Cannot copy '${source}' into '${o.dir}': ${(e as Error).message.split("\n")[0]}`,
    );
  }
}

/**
 * Moves a staged copy to its digest name, unless that blob is already there with the same bytes.
 *
 * @param staged the staged copy
 * @param dir the blob folder it was staged in
 * @returns `written` (the blob is new) or `present` (the same bytes were already stored)
 * @throws {InputError} `BLOB_DIGEST_MISMATCH` when a blob of that name holds other bytes (it is
 *   left as it is), `BLOB_READ` when that name is no regular file, `OUTPUT_WRITE` on I/O failure
 * @example
 * ```ts ignore
 * const how = await commitBlob(staged, "log/blobs");
 * ```
 */
export async function commitBlob(staged: StagedBlob, dir: string): Promise<"written" | "present"> {
  const final = `${dir}/${staged.sha256}`;
  if (staged.stored) return "present"; // checked when it was staged
  try {
    if (await _present(dir, staged.sha256)) return "present";
    try {
      await Deno.link(staged.path, final); // fails when the name exists: never replaces a blob
      await syncFolder(dir); // the new name on the disk before the log line that uses it
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
      if (await _present(dir, staged.sha256)) return "present"; // appeared meanwhile
      // The name is taken by something that is no blob (a dangling link): nothing was stored.
      throw new InputError(
        "BLOB_READ",
        `Cannot store blob '${final}': the name is taken by an entry that cannot be read as a ` +
          "file (a dangling link?); left as it is",
      );
    }
    return "written";
  } catch (e) {
    if (e instanceof InputError || e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError(
      "OUTPUT_WRITE",
      `Cannot store blob '${final}': ${(e as Error).message.split("\n")[0]}`,
    );
  } finally {
    await staged.discard();
  }
}

/** Whether the blob is stored with the right bytes (absent: false; other bytes: refused). */
async function _present(dir: string, sha256: string): Promise<boolean> {
  let blob;
  try {
    blob = await openBlobStore(dir, { hasher: nativeSha256 }).open!(sha256);
  } catch (e) {
    if (e instanceof InputError && e.code === "BLOB_DIGEST_MISMATCH") {
      throw new InputError(
        "BLOB_DIGEST_MISMATCH",
        `Cannot store blob '${dir}/${sha256}': a file of that name holds other bytes (a copy ` +
          "cut short?), left as it is; remove it and append again to store this file's bytes " +
          "in its place",
      );
    }
    throw e;
  }
  if (blob === null) return false;
  blob.close();
  return true;
}

async function _hashFile(path: string): Promise<string> {
  using f = await Deno.open(path, { read: true });
  const h = nativeSha256();
  const buf = new Uint8Array(_CHUNK);
  for (;;) {
    const n = await f.read(buf);
    if (n === null) return h.hex();
    h.update(buf.subarray(0, n));
  }
}
