/**
 * The only place where files become trusted bytes: every read is checked against the manifest
 * (length first, then SHA-256) before anyone parses it, and every asset read is recorded so that
 * verdicts can name the exact assets they depended on.
 *
 * @module
 */
import { AssetError } from "../errors.ts";
import { type Manifest, parseManifest } from "./manifest.ts";
import { sha256Hex } from "../sha256_hex.ts";
import { parseStrictJson, StrictJsonError } from "../json_strict.ts";

/** The manifest path relative to the asset root. */
export const MANIFEST_PATH = "tables/manifest.json";

/** A hash-checked view of the asset tree. */
export interface AssetStore {
  /** Root directory (the repository root or an installed copy). */
  readonly root: string;
  /** The manifest. */
  readonly manifest: Manifest;
  /** SHA-256 of the manifest file itself. */
  readonly manifestSha256: string;
  /**
   * Reads an asset's bytes after checking length and digest (`ASSET_*` errors; a read this
   * process may not make is passed on as Deno's `NotCapable` or `PermissionDenied`).
   */
  read(path: string): Promise<Uint8Array>;
  /** Reads and parses a JSON asset after checking it. */
  readJson(path: string): Promise<unknown>;
  /** Assets read so far: path -> sha256. */
  used(): Readonly<Record<string, string>>;
  /**
   * A view of the same checked files that records its own reads: its `used()` starts as what was
   * read through this store itself (not through its other views) and then grows by reads made
   * through the view; this store records them too, so its own `used()` stays every read of the
   * process. One view per audit item gives each result the assets its own recomputation read
   * (and the context's, such as the engine), whatever the process computed before (a pool worker
   * serves many audits).
   */
  scope(): AssetStore;
}

/**
 * Opens the asset store rooted at a directory.
 *
 * @param root directory containing `tables/manifest.json`; default the repository this module
 *   belongs to
 * @returns the store
 * @throws {AssetError} `MANIFEST_MISSING` or `MANIFEST_INVALID`; {Deno.errors.NotCapable} or
 *   {Deno.errors.PermissionDenied} as thrown when this process may not read the manifest (the
 *   reader's set-up, not the install's content; the CLI's PERMISSION error)
 * @example
 * ```ts ignore
 * const store = await openAssetStore();
 * const bytes = await store.read("profiles/gpu/a100.json");
 * ```
 */
export async function openAssetStore(root?: string): Promise<AssetStore> {
  // A file path, not a URL's text (`%20` for a space would name no folder).
  const base = root ??
    decodeURIComponent(new URL("../../", import.meta.url).pathname).replace(/\/$/, "");
  let manifestBytes: Uint8Array;
  try {
    manifestBytes = await Deno.readFile(`${base}/${MANIFEST_PATH}`);
  } catch (e) {
    if (_denied(e)) throw e;
    throw new AssetError(
      "MANIFEST_MISSING",
      `Cannot open assets: '${base}/${MANIFEST_PATH}' unreadable (${(e as Error).name})`,
    );
  }
  const manifest = parseManifest(new TextDecoder().decode(manifestBytes));
  return _store({ base, manifest, manifestSha256: sha256Hex(manifestBytes) }, {}, []);
}

/**
 * A store over checked files. `own`: what was read through it (from `initial`, its creator's
 * own reads); `used`: that and every read through its views; `outer`: the `used` of every
 * enclosing store, which its reads join too.
 */
function _store(
  files: { base: string; manifest: Manifest; manifestSha256: string },
  initial: Readonly<Record<string, string>>,
  outer: readonly Record<string, string>[],
): AssetStore {
  const { base, manifest } = files;
  const own: Record<string, string> = { ...initial };
  const used: Record<string, string> = { ...initial };
  const recorders = [own, used, ...outer];
  const read = async (path: string): Promise<Uint8Array> => {
    const entry = manifest.assets[path];
    if (entry === undefined) {
      throw new AssetError("ASSET_NOT_LISTED", `Cannot load '${path}': not in the asset manifest`);
    }
    let bytes: Uint8Array;
    try {
      const info = await Deno.stat(`${base}/${path}`);
      if (info.size !== entry.bytes) {
        throw new AssetError(
          "ASSET_SIZE_MISMATCH",
          `Cannot load '${path}': ${info.size} bytes, manifest says ${entry.bytes}`,
        );
      }
      bytes = await Deno.readFile(`${base}/${path}`);
    } catch (e) {
      if (e instanceof AssetError || _denied(e)) throw e;
      throw new AssetError("ASSET_MISSING", `Cannot load '${path}': ${(e as Error).name}`);
    }
    const digest = sha256Hex(bytes);
    if (digest !== entry.sha256) {
      throw new AssetError(
        "ASSET_DIGEST_MISMATCH",
        `Cannot load '${path}': sha256 ${digest.slice(0, 16)}… does not match the manifest's ${
          entry.sha256.slice(0, 16)
        }…`,
      );
    }
    for (const r of recorders) r[path] = digest;
    return bytes;
  };
  const store: AssetStore = {
    root: base,
    manifest,
    manifestSha256: files.manifestSha256,
    read,
    async readJson(path: string): Promise<unknown> {
      const bytes = await read(path);
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch {
        throw new AssetError("ASSET_INVALID", `Cannot load '${path}': not valid UTF-8`);
      }
      try {
        // As strictly as the same document given as a file (a duplicate key would read as its
        // last value where a reader of the file sees the first).
        return parseStrictJson(text, { fractions: true });
      } catch (e) {
        if (!(e instanceof StrictJsonError)) throw e;
        throw new AssetError(
          "ASSET_INVALID",
          `Cannot load '${path}': not strict JSON (${e.reason} at '${e.path}')`,
        );
      }
    },
    used: () => ({ ...used }),
    scope: () => _store(files, own, [used, ...outer]),
  };
  return store;
}

/**
 * Whether a read failed because this process may not read the file (Deno's sandbox, or the file
 * system's permissions): the reader's own set-up, which says nothing of the install's content, so
 * it is passed on as it is (the CLI's PERMISSION error, naming what to grant) and never reported
 * as a missing or tampered asset.
 */
function _denied(e: unknown): boolean {
  return e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied;
}
