/**
 * The name of the temporary file a write goes through before it is put in place (linked, or
 * renamed): beside the destination (so that stays on one file system), `<name>.tmp-<uuid>`. A name within
 * 41 bytes of the 255-byte limit file systems put on a name leaves no room for that suffix; its
 * temporary file is then named from a prefix of the name and a digest of the whole
 * (`<prefix>~<16 hex>.tmp-<uuid>`), so every destination keeps one stem of its own that a later
 * run can find leftovers by.
 *
 * @module
 */
import { basename } from "node:path";
import { sha256Hex } from "../sha256_hex.ts";

/** Bytes a file name may take on the file systems written to (ext4, XFS, APFS, NTFS: 255). */
const NAME_MAX = 255;
/** Bytes `.tmp-` and a UUID add. */
const SUFFIX = 41;
/** Bytes of the name's prefix kept in a shortened stem. */
const PREFIX = 190;

const _UTF8 = new TextEncoder();

/**
 * The stem of a destination name's temporary files: the name itself when the suffix fits, else a
 * prefix of at most 190 bytes (whole code points), `~` and the first 16 hex digits of the name's
 * SHA-256.
 *
 * @param name the destination's file name (no folder)
 * @returns the stem
 * @example
 * ```ts
 * import { tempStem } from "./temp_sibling.ts";
 * if (tempStem("claims.jsonl") !== "claims.jsonl") throw new Error();
 * const long = "a".repeat(240);
 * if (!/^a{190}~[0-9a-f]{16}$/.test(tempStem(long))) throw new Error(tempStem(long));
 * ```
 */
export function tempStem(name: string): string {
  if (_UTF8.encode(name).length + SUFFIX <= NAME_MAX) return name;
  let prefix = "";
  let bytes = 0;
  for (const ch of name) {
    const n = _UTF8.encode(ch).length;
    if (bytes + n > PREFIX) break;
    prefix += ch;
    bytes += n;
  }
  const digest = sha256Hex(_UTF8.encode(name)).slice(0, 16);
  return `${prefix}~${digest}`;
}

/**
 * A fresh temporary sibling of `path`.
 *
 * @param path the destination
 * @returns `<folder>/<tempStem(name)>.tmp-<uuid>`
 * @example
 * ```ts
 * import { tempSibling } from "./temp_sibling.ts";
 * if (!/^out\/x\.json\.tmp-[0-9a-f-]{36}$/.test(tempSibling("out/x.json"))) throw new Error();
 * ```
 */
export function tempSibling(path: string): string {
  return ownSibling(path, `.tmp-${crypto.randomUUID()}`);
}

/**
 * A sibling file that belongs to `path` (`<path>.partial`, `<path>.lock`, a temporary file):
 * `path` and `suffix` when that name fits the 255 bytes a name may take (the name earlier versions
 * used, so that they lock and resume alike), else the name's {@link tempStem} and `suffix` (a name
 * of 248 bytes is legal; with `.partial` it would not be).
 *
 * @param path the file the sibling belongs to
 * @param suffix the sibling's suffix (at most 41 bytes)
 * @returns the sibling's path
 * @example
 * ```ts
 * import { ownSibling } from "./temp_sibling.ts";
 * if (ownSibling("out/r.jsonl", ".partial") !== "out/r.jsonl.partial") throw new Error();
 * if (ownSibling(`${"r".repeat(240)}`, ".lock") !== `${"r".repeat(240)}.lock`) throw new Error();
 * if (!/^out\/r{190}~[0-9a-f]{16}\.lock$/.test(ownSibling(`out/${"r".repeat(252)}`, ".lock"))) {
 *   throw new Error();
 * }
 * ```
 */
export function ownSibling(path: string, suffix: string): string {
  const name = basename(path);
  const folder = path.slice(0, path.length - name.length); // as given, its separator kept
  const fits = _UTF8.encode(name + suffix).length <= NAME_MAX;
  return `${folder}${fits ? name : tempStem(name)}${suffix}`;
}

/**
 * Matches the names of `name`'s temporary siblings (as {@link tempSibling} makes them).
 *
 * @param name the destination's file name
 * @returns the pattern
 * @example
 * ```ts
 * import { tempSibling, tempSiblingPattern } from "./temp_sibling.ts";
 * const p = tempSiblingPattern("claims.jsonl");
 * if (!p.test(tempSibling("claims.jsonl")) || p.test("claims.jsonl.tmp-x")) throw new Error();
 * ```
 */
export function tempSiblingPattern(name: string): RegExp {
  const stem = tempStem(name).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${stem}\\.tmp-[0-9a-f-]{36}$`);
}
