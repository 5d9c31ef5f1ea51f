/**
 * The C2SP `tlog-checkpoint` note text (c2sp.org/tlog-checkpoint): origin line, tree size in
 * decimal, base64 RFC 6962 root hash, optional extension lines, each ended by a newline. The
 * signatures around it are a signed note (see the attest folder).
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { MERKLE_HASH_BYTES } from "./merkle.ts";

/**
 * A log origin as bitaudit signs and pins it: 1 to 256 printable ASCII characters without space
 * or '+' (a note key name, short enough to read at a glance), e.g. `bitaudit.example/prover-1/log`.
 * `claims checkpoint --origin` and a trust root's prover `origin` are held to it.
 */
export const SIGNED_ORIGIN_PATTERN: RegExp = Object.freeze(/^[\x21-\x2a\x2c-\x7e]{1,256}$/);

/** The three lines of a checkpoint (and its extension lines). */
export interface Checkpoint {
  /** Log identity, e.g. `bitaudit.example/prover-1/log`. */
  readonly origin: string;
  /** Number of leaves. */
  readonly treeSize: number;
  /** 32-byte RFC 6962 Merkle Tree Hash. */
  readonly rootHash: Uint8Array;
  /** Opaque extension lines (not recommended by the spec; kept verbatim). */
  readonly extensions: readonly string[];
}

/**
 * Formats a checkpoint's note text.
 *
 * @param cp origin, tree size, root hash (32 bytes) and extension lines
 * @returns the note text, ending with a newline
 * @throws {RangeError} when the origin is empty or holds a space, plus or control character, the
 *   size is not a safe non-negative integer, the root is not 32 bytes, or an extension line is
 *   empty or holds a control character
 * @example
 * ```ts
 * import { formatCheckpoint } from "./checkpoint.ts";
 * const text = formatCheckpoint({
 *   origin: "example.com/log", treeSize: 2, rootHash: new Uint8Array(32), extensions: [],
 * });
 * if (text !== "example.com/log\n2\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n") throw new Error();
 * ```
 */
export function formatCheckpoint(cp: Checkpoint): string {
  if (!_isOrigin(cp.origin)) {
    throw new RangeError(
      `Cannot format checkpoint: origin must be non-empty, without spaces or '+'`,
    );
  }
  if (!Number.isSafeInteger(cp.treeSize) || cp.treeSize < 0) {
    throw new RangeError(`Cannot format checkpoint: tree size ${cp.treeSize} is not an integer`);
  }
  if (!(cp.rootHash instanceof Uint8Array) || cp.rootHash.length !== MERKLE_HASH_BYTES) {
    throw new RangeError("Cannot format checkpoint: root hash must be 32 bytes");
  }
  for (const line of cp.extensions) {
    if (line.length === 0 || _CONTROL.test(line)) {
      throw new RangeError("Cannot format checkpoint: extension lines must be non-empty text");
    }
  }
  const lines = [cp.origin, String(cp.treeSize), _b64(cp.rootHash), ...cp.extensions];
  return lines.map((l) => `${l}\n`).join("");
}

/**
 * Parses a checkpoint's note text strictly (the text of a signed note, signatures removed).
 *
 * @param text note text ending with a newline
 * @returns the checkpoint, frozen
 * @throws {InputError} `BAD_CHECKPOINT` when the input is not a string, a line is missing or
 *   empty, the size has leading zeros or is not a safe integer, or the root is not canonical
 *   base64 of 32 bytes
 * @example
 * ```ts
 * import { parseCheckpoint } from "./checkpoint.ts";
 * const cp = parseCheckpoint("example.com/log\n2\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n");
 * if (cp.treeSize !== 2 || cp.rootHash.length !== 32) throw new Error();
 * ```
 */
export function parseCheckpoint(text: string): Checkpoint {
  if (typeof text !== "string") _bad("input is not text");
  if (!text.endsWith("\n")) _bad("the text does not end with a newline");
  const lines = text.slice(0, -1).split("\n");
  if (lines.length < 3) _bad("expected origin, tree size and root hash lines");
  const [origin, size, root, ...extensions] = lines as [string, string, string, ...string[]];
  // The spec asks only for a non-empty origin; we also refuse control characters.
  if (origin.length === 0 || _CONTROL.test(origin)) _bad("the origin line is empty or not text");
  if (!/^(?:0|[1-9][0-9]*)$/.test(size)) {
    _bad(`the tree size '${size.slice(0, 20)}' is not a decimal integer without leading zeros`);
  }
  if (size.length > 16 || !Number.isSafeInteger(Number(size))) {
    _bad(`the tree size '${size.slice(0, 20)}' is too large (at most 2^53 - 1)`);
  }
  const rootHash = _unb64(root);
  if (rootHash === undefined || rootHash.length !== MERKLE_HASH_BYTES) {
    _bad("the root hash is not base64 of 32 bytes");
  }
  if (extensions.some((l) => l.length === 0 || _CONTROL.test(l))) {
    _bad("an extension line is empty or not text");
  }
  return Object.freeze({
    origin,
    treeSize: Number(size),
    rootHash: rootHash as Uint8Array,
    extensions: Object.freeze(extensions),
  });
}

// deno-lint-ignore no-control-regex
const _CONTROL = /[\u0000-\u001f\u007f]/;

function _isOrigin(s: string): boolean {
  return s.length > 0 && !_CONTROL.test(s) && !/[\s+]/u.test(s);
}

function _b64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function _unb64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  // Canonical only: re-encoding must give the same text (no stray bits in the padding).
  return _b64(bytes) === text ? bytes : undefined;
}

function _bad(why: string): never {
  throw new InputError("BAD_CHECKPOINT", `Cannot read checkpoint: ${why}`);
}
