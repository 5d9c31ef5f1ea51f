/**
 * Claim logs: JSON Lines of claim records, chained by `prev` digests and committed to by an
 * RFC 6962 Merkle root over the record digests.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { type ClaimRecord, GENESIS_PREV, parseClaimRecord, recordDigest } from "./claim_record.ts";
import { merkleRoot } from "./merkle.ts";
import { type MerkleTree, merkleTree } from "./merkle_tree.ts";
import { bytesToHex, hexToBytes } from "./hex.ts";
import { parseStrictJson, StrictJsonError } from "../json_strict.ts";
import { splitLines } from "../split_lines.ts";

/** A parsed, chain-checked claim log. */
export interface ClaimLog {
  /**
   * The records in log order. From {@link parseClaimLog}, a read-only view over the log's lines:
   * every line was parsed and checked, but a record is built again from its line when first asked
   * for (and then kept), so the log costs its text in memory, not a parsed value per record.
   */
  readonly records: readonly ClaimRecord[];
  /** Record digests (hex), same order. */
  readonly digests: readonly string[];
  /** Merkle root over the digests (hex): the log's commitment. */
  readonly root: string;
}

/**
 * Most JSON values one claim record's line may hold (2^20). The largest records bitaudit reads
 * hold a sequence's tokens and positions (at most 65,536 each); without a bound, a line of tens
 * of millions of zeros in a workload of a kind this version keeps verbatim, within the log's byte
 * limit, takes gigabytes to parse and canonicalize and ends the process.
 */
export const MAX_RECORD_VALUES = 1 << 20;

/** Limits of {@link parseClaimLog}. */
export interface ClaimLogLimits {
  /** Largest accepted text in bytes (default 256 MiB): an integer >= 0. */
  readonly maxBytes?: number;
  /** Largest accepted record count (default 1,000,000): an integer >= 0. */
  readonly maxRecords?: number;
}

/**
 * Parses a JSON Lines claim log and checks its chain: one log id, sequence numbers 0, 1, 2, ...,
 * each `prev` the digest of the record before (zeros for the first).
 *
 * Lines are parsed strictly (`parseStrictJson`: no duplicate key, integers written as integers,
 * no lone surrogate, no byte-order mark, no carriage return) and records hold only known fields,
 * so a record's digest commits to everything its line says.
 *
 * Memory: parsed JSON costs far more than its text (an empty object `{}` is 3 bytes of text and
 * some 70 bytes of heap), so a log within the limits could hold gigabytes of parsed values: 85
 * lines of 1,048,000 `{}` each (255 MiB, each line within {@link MAX_RECORD_VALUES}) ended the
 * process out of memory when every record was kept, and so could honest logs of long
 * model-forward records (65,536 position pairs each). Each line is parsed, checked and hashed in
 * turn and its value dropped; `records` builds a record again from its line when it is read
 * (audits read the sampled ones), so the log holds its text, lines and digests, plus one line's
 * parsed value at a time.
 *
 * @param text the log text (UTF-8 decoded)
 * @param limits size limits
 * @returns records, digests and the Merkle root
 * @throws {InputError} `LOG_TOO_LARGE`, `LOG_EMPTY`, `LOG_SYNTAX` (with the line; also for an
 *   input that is not a string), `LOG_CHAIN`, and the record codes `CLAIM_INVALID` (also for
 *   strictness refusals, naming line and field) / `CLAIM_VERSION`
 * @throws {RangeError} when a limit is not an integer >= 0 (NaN would bound nothing)
 * @example
 * ```ts
 * import { parseClaimLog } from "./claim_log.ts";
 * import { InputError } from "../errors.ts";
 * try {
 *   parseClaimLog("{not json}\n");
 *   throw new Error("accepted");
 * } catch (e) {
 *   if (!(e instanceof InputError) || e.code !== "LOG_SYNTAX") throw e;
 * }
 * ```
 */
export function parseClaimLog(text: string, limits: ClaimLogLimits = {}): ClaimLog {
  const lines = _logLines(text, limits);
  const read = _reader(lines);
  lines.forEach((line, i) => read.line(line, i));
  return read.done();
}

/** How {@link parseClaimLogInSteps} hands control back while it parses. */
export interface ClaimLogSteps {
  /** Awaited between steps (e.g. a zero timeout, so that a page can draw). */
  readonly pause: () => Promise<void>;
  /** Told the lines parsed so far and the line count, at every pause. */
  readonly progress?: (done: number, total: number) => void;
  /** Time in ms one step may take before it pauses (default 50). */
  readonly stepMs?: number;
}

/**
 * {@link parseClaimLog} in steps: the same checks and result, but it pauses (`steps.pause`) when a
 * step has taken `stepMs`, so that a browser page stays responsive on a log of hundreds of MB
 * and can show how far it got.
 *
 * @param text the log text (UTF-8 decoded)
 * @param steps the pause, an optional progress callback and the step length
 * @param limits size limits
 * @returns what {@link parseClaimLog} returns
 * @throws {InputError} what {@link parseClaimLog} throws
 * @throws {RangeError} what {@link parseClaimLog} throws
 * @example
 * ```ts
 * import { parseClaimLogInSteps } from "./claim_log.ts";
 * try {
 *   await parseClaimLogInSteps("{not json}\n", { pause: () => Promise.resolve() });
 *   throw new Error("accepted");
 * } catch (e) {
 *   if ((e as { code?: string }).code !== "LOG_SYNTAX") throw e;
 * }
 * ```
 */
export async function parseClaimLogInSteps(
  text: string,
  steps: ClaimLogSteps,
  limits: ClaimLogLimits = {},
): Promise<ClaimLog> {
  const lines = _logLines(text, limits);
  const read = _reader(lines);
  const stepMs = steps.stepMs ?? 50;
  let since = performance.now();
  for (let i = 0; i < lines.length; i++) {
    read.line(lines[i]!, i);
    // Timed after every line: a few lines of a million values each take seconds apiece.
    if (performance.now() - since >= stepMs) {
      steps.progress?.(i + 1, lines.length);
      await steps.pause();
      since = performance.now();
    }
  }
  steps.progress?.(lines.length, lines.length);
  return read.done();
}

/** The log's lines, after the size and count limits. */
function _logLines(text: string, limits: ClaimLogLimits): string[] {
  const maxBytes = _limit(limits.maxBytes ?? 256 * 1024 * 1024, "maxBytes");
  const maxRecords = _limit(limits.maxRecords ?? 1_000_000, "maxRecords");
  if (typeof text !== "string") {
    throw new InputError("LOG_SYNTAX", "Cannot read claim log: the input is not text");
  }
  // The limit is on the file's UTF-8 bytes, as readers count them (a UTF-16 unit is 1 to 3 bytes:
  // only a text of more than a third of the limit in units needs counting).
  if (text.length > maxBytes || (text.length > maxBytes / 3 && _utf8Length(text) > maxBytes)) {
    throw new InputError("LOG_TOO_LARGE", `Cannot read claim log: larger than ${maxBytes} bytes`);
  }
  // One more piece for the empty one after a last newline.
  const lines = splitLines(text, maxRecords + 1);
  if (lines === null) {
    throw new InputError("LOG_TOO_LARGE", `Cannot read claim log: more than ${maxRecords} records`);
  }
  if (lines.at(-1) === "") lines.pop();
  if (lines.length === 0) throw new InputError("LOG_EMPTY", "Cannot read claim log: no records");
  if (lines.length > maxRecords) {
    throw new InputError("LOG_TOO_LARGE", `Cannot read claim log: ${lines.length} records`);
  }
  return lines;
}

/**
 * A limit of {@link ClaimLogLimits}, an integer >= 0: NaN compares false with every length, so it
 * would bound nothing.
 */
function _limit(v: number, name: string): number {
  if (!Number.isSafeInteger(v) || v < 0) {
    throw new RangeError(`Cannot read claim log: ${name} ${String(v)} is not an integer >= 0`);
  }
  return v;
}

/** Reads lines in order into digests, checking the chain; `done()` gives the log. */
function _reader(lines: readonly string[]): {
  line: (line: string, i: number) => void;
  done: () => ClaimLog;
} {
  const digests: string[] = [];
  let logId = "";
  const line = (line: string, i: number) => {
    const record = _record(line, i);
    const { seq, prev } = record.predicate.log;
    const expectedPrev = i === 0 ? GENESIS_PREV : digests[i - 1];
    if (i === 0) logId = record.predicate.log.logId;
    if (seq !== i || prev !== expectedPrev || record.predicate.log.logId !== logId) {
      throw new InputError(
        "LOG_CHAIN",
        `Cannot read claim log: line ${
          i + 1
        } breaks the chain (seq ${seq}, expected ${i}; prev must be the previous record's digest; one logId)`,
      );
    }
    digests.push(recordDigest(record));
  };
  return { line, done: () => ({ records: _records(lines), digests, root: _root(digests) }) };
}

/** One line's record (line `i`, 0-based), parsed strictly. */
function _record(line: string, i: number): ClaimRecord {
  let json: unknown;
  try {
    json = parseStrictJson(line, { maxValues: MAX_RECORD_VALUES });
  } catch (e) {
    if (!(e instanceof StrictJsonError)) throw e;
    if (e.strict) {
      throw new InputError(
        "CLAIM_INVALID",
        `Cannot read claim (line ${i + 1}): '${e.path}' ${e.reason}`,
      );
    }
    throw new InputError(
      "LOG_SYNTAX",
      `Cannot read claim log: line ${i + 1} is not valid JSON (${e.reason} at '${e.path}')`,
    );
  }
  return parseClaimRecord(json, `line ${i + 1}`);
}

/**
 * The records of checked lines as a read-only array: index `i` is line `i`'s record, built from
 * its line at each read and deeply frozen, never kept by the view (sampling every record of a log
 * of large records must not hold them all: a weak reference would, for the whole synchronous loop
 * that reads them). Writes, and freezing, sealing or re-prototyping the view, are refused
 * (TypeError in strict code).
 */
function _records(lines: readonly string[]): readonly ClaimRecord[] {
  const at = (key: string | symbol): number => {
    if (typeof key !== "string") return -1;
    const i = Number(key);
    return Number.isInteger(i) && i >= 0 && i < lines.length && String(i) === key ? i : -1;
  };
  const record = (i: number): ClaimRecord => _deepFreeze(_record(lines[i]!, i));
  // The target holds no element, only the length: element reads go through the traps.
  return new Proxy(new Array<ClaimRecord>(lines.length), {
    get: (t, key, receiver) => at(key) >= 0 ? record(at(key)) : Reflect.get(t, key, receiver),
    has: (t, key) => at(key) >= 0 || Reflect.has(t, key),
    ownKeys: (t) => [...Array.from(lines.keys(), String), ...Reflect.ownKeys(t)],
    getOwnPropertyDescriptor: (t, key) =>
      at(key) >= 0
        ? { value: record(at(key)), writable: false, enumerable: true, configurable: true }
        : Reflect.getOwnPropertyDescriptor(t, key),
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
    // The view's elements exist only through the traps: a non-extensible target would make its
    // own keys a lie the language refuses, so it stays as it is.
    preventExtensions: () => false,
    setPrototypeOf: () => false,
  });
}

/** Freezes a parsed JSON value and everything in it; returns it. */
function _deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const child of Object.values(v)) stack.push(child);
  }
  return value;
}

/**
 * The log commitment: RFC 6962 Merkle root over the record digests.
 *
 * @param digests record digests in log order (hex)
 * @returns the root (hex)
 * @example
 * ```ts
 * import { logRoot } from "./claim_log.ts";
 * if (logRoot(["00".repeat(32)]).length !== 64) throw new Error();
 * ```
 */
export function logRoot(digests: readonly string[]): string {
  return bytesToHex(merkleRoot(digests.map(hexToBytes)));
}

/** Trees already built, by the digest list they were built from (one build per parsed log). */
const _trees = new WeakMap<readonly string[], MerkleTree>();

/**
 * A parsed log's root, from the tree {@link logTree} then hands out: the log's hashes are
 * computed once, whether it is only committed to (`check`, `claims root`) or also proved from.
 */
function _root(digests: readonly string[]): string {
  return digests.length === 0 ? logRoot(digests) : bytesToHex(logTree({ digests }).root);
}

/**
 * The Merkle tree over a log's record digests, built on first use and kept while the log's
 * digest list lives: an audit proves k records of an n-record log with one O(n) build and
 * O(log n) per proof. Its root is the log's `root` when the log came from {@link parseClaimLog};
 * callers still verify each proof against the committed root.
 *
 * @param log a claim log (at least one record)
 * @returns the tree over `log.digests`
 * @throws {RangeError} when the log holds no digest
 * @example
 * ```ts
 * import { logRoot, logTree } from "./claim_log.ts";
 * import { bytesToHex } from "./hex.ts";
 * const digests = ["00".repeat(32), "11".repeat(32), "22".repeat(32)];
 * const tree = logTree({ digests });
 * if (bytesToHex(tree.root) !== logRoot(digests) || tree.proof(2).length !== 1) throw new Error();
 * ```
 */
export function logTree(log: Pick<ClaimLog, "digests">): MerkleTree {
  const known = _trees.get(log.digests);
  if (known !== undefined && known.size === log.digests.length) return known;
  const tree = merkleTree(log.digests.map(hexToBytes));
  _trees.set(log.digests, tree);
  return tree;
}

/**
 * Serialises records as JSON Lines (one compact JSON object per line).
 *
 * @param records records in log order
 * @returns the log text
 * @example
 * ```ts
 * import { formatClaimLog } from "./claim_log.ts";
 * if (formatClaimLog([]) !== "") throw new Error();
 * ```
 */
export function formatClaimLog(records: readonly ClaimRecord[]): string {
  return records.map((r) => JSON.stringify(r) + "\n").join("");
}

/** The UTF-8 byte length of a text (a lone surrogate counts as the 3 bytes of U+FFFD). */
function _utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4; // a pair: one code point of four bytes
      i++;
    } else n += 3;
  }
  return n;
}
