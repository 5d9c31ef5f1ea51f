/**
 * The asset manifest: every profile and table bitaudit may load, with its SHA-256 and length.
 *
 * Schema `bitaudit.asset-manifest/v1` (file `tables/manifest.json`):
 * ```
 * { "schema": "bitaudit.asset-manifest/v1",
 *   "code"?: { "sha256": "<64 hex>", "files": <int> },
 *   "assets": { "<path relative to the repository root>": {
 *       "sha256": "<64 hex>", "bytes": <int>, "producer": "<script or source>", "formatVersion": <int> } } }
 * ```
 *
 * `code` is the digest of the program's source files and dependency pins (`mod.ts`, `src/`,
 * `deno.json`, `deno.lock`; written by
 * `deno task manifest`): the manifest, whose digest every result and verdict names, so tells one
 * build of a version from another, its code as well as its tables.
 *
 * @module
 */
import { AssetError } from "../errors.ts";
import { parseStrictJson, StrictJsonError } from "../json_strict.ts";

/** One manifest entry. */
export interface ManifestEntry {
  /** Lowercase hex SHA-256 of the file. */
  readonly sha256: string;
  /** File length in bytes. */
  readonly bytes: number;
  /** What produces the file (a script path or a source description). */
  readonly producer: string;
  /** Version of the file's format. */
  readonly formatVersion: number;
}

/** A validated manifest. */
export interface Manifest {
  /** Schema id. */
  readonly schema: "bitaudit.asset-manifest/v1";
  /** The digest of the program's source files and their count (absent in a manifest of tables only). */
  readonly code?: { readonly sha256: string; readonly files: number };
  /** Entries by repository-relative path. */
  readonly assets: Readonly<Record<string, ManifestEntry>>;
}

const _ENTRY_FIELDS = ["sha256", "bytes", "producer", "formatVersion"];

/**
 * Parses and validates manifest text.
 *
 * @param text manifest JSON text
 * @returns the frozen manifest
 * @throws {AssetError} `MANIFEST_INVALID` naming the bad field
 * @example
 * ```ts
 * import { parseManifest } from "./manifest.ts";
 * const m = parseManifest('{"schema":"bitaudit.asset-manifest/v1","assets":{}}');
 * if (Object.keys(m.assets).length !== 0) throw new Error();
 * ```
 */
export function parseManifest(text: string): Manifest {
  const bad = (why: string): never => {
    throw new AssetError("MANIFEST_INVALID", `Cannot read asset manifest: ${why}`);
  };
  let json: unknown;
  try {
    // Strict: a path listed twice, `4618.0` bytes or `1e0` are no manifest bitaudit writes.
    json = parseStrictJson(text);
  } catch (e) {
    if (!(e instanceof StrictJsonError)) throw e;
    bad(`not strict JSON (${e.reason} at '${e.path}')`);
  }
  const m = json as { schema?: unknown; assets?: unknown; code?: unknown };
  if (typeof m !== "object" || m === null || Array.isArray(m)) bad("expected an object");
  const extra = Object.keys(m).find((k) => k !== "schema" && k !== "assets" && k !== "code");
  if (extra !== undefined) bad(`unknown field '${extra}'`);
  if (m.schema !== "bitaudit.asset-manifest/v1") {
    bad("'schema' must be 'bitaudit.asset-manifest/v1'");
  }
  if (typeof m.assets !== "object" || m.assets === null || Array.isArray(m.assets)) {
    bad("'assets' must be an object");
  }
  const assets: Record<string, ManifestEntry> = {};
  for (const [path, v] of Object.entries(m.assets as Record<string, unknown>)) {
    const e = v as Record<string, unknown>;
    if (!/^[a-z0-9_][a-z0-9_./-]*$/i.test(path) || path.includes("..")) bad(`bad path '${path}'`);
    if (typeof e !== "object" || e === null || Array.isArray(e)) {
      bad(`'assets.${path}' must be an object`);
    }
    const unknown = Object.keys(e).find((k) => !_ENTRY_FIELDS.includes(k));
    if (unknown !== undefined) bad(`'assets.${path}' has an unknown field '${unknown}'`);
    if (typeof e?.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(e.sha256)) {
      bad(`'assets.${path}.sha256' must be 64 lowercase hex digits`);
    }
    if (!Number.isSafeInteger(e.bytes) || (e.bytes as number) < 0) {
      bad(`'assets.${path}.bytes' must be a non-negative integer`);
    }
    if (typeof e.producer !== "string") bad(`'assets.${path}.producer' must be a string`);
    if (!Number.isSafeInteger(e.formatVersion)) {
      bad(`'assets.${path}.formatVersion' must be an integer`);
    }
    assets[path] = Object.freeze({
      sha256: e.sha256 as string,
      bytes: e.bytes as number,
      producer: e.producer as string,
      formatVersion: e.formatVersion as number,
    });
  }
  const code = m.code === undefined ? undefined : _code(m.code, bad);
  return Object.freeze({
    schema: "bitaudit.asset-manifest/v1",
    ...(code === undefined ? {} : { code }),
    assets: Object.freeze(assets),
  });
}

/** The `code` field: exactly `sha256` (64 lowercase hex) and `files` (a positive integer). */
function _code(v: unknown, bad: (why: string) => never): { sha256: string; files: number } {
  const c = v as Record<string, unknown>;
  if (typeof c !== "object" || c === null || Array.isArray(c)) bad("'code' must be an object");
  const unknown = Object.keys(c).find((k) => k !== "sha256" && k !== "files");
  if (unknown !== undefined) bad(`'code' has an unknown field '${unknown}'`);
  if (typeof c.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(c.sha256)) {
    bad("'code.sha256' must be 64 lowercase hex digits");
  }
  if (!Number.isSafeInteger(c.files) || (c.files as number) < 1) {
    bad("'code.files' must be a positive integer");
  }
  return Object.freeze({ sha256: c.sha256 as string, files: c.files as number });
}
