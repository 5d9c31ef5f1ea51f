/**
 * in-toto Statement v1 (`in-toto/attestation` `spec/v1/statement.md`): the payload of every
 * bitaudit envelope.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { parseStrictJson } from "../json_strict.ts";

import { canonicalJson, STATEMENT_TYPE } from "../claims/mod.ts";

/** `_type` of an in-toto Statement v1 (defined with the claim records, which are statements too). */
export { STATEMENT_TYPE };

/** DSSE `payloadType` of an envelope carrying a Statement. */
export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";

/** A subject: a named artifact and its digests (lowercase hex; `sha256` required here). */
export interface StatementSubject {
  /** Artifact name, e.g. `claim:<logId>/<seq>`. */
  readonly name: string;
  /** DigestSet: algorithm -> lowercase hex (`spec/v1/digest_set.md`). */
  readonly digest: Readonly<Record<string, string>> & { readonly sha256: string };
}

/** An in-toto Statement v1. */
export interface Statement<P extends Record<string, unknown> = Record<string, unknown>> {
  /** Always {@link STATEMENT_TYPE}. */
  readonly _type: typeof STATEMENT_TYPE;
  /** What the statement is about; at least one. */
  readonly subject: readonly StatementSubject[];
  /** URI naming the predicate schema, with its major version. */
  readonly predicateType: string;
  /** The predicate; optional in the spec. */
  readonly predicate?: P;
}

/**
 * Parses and validates Statement bytes (the verified payload of an envelope).
 *
 * Checks: UTF-8, a JSON object, `_type` exactly {@link STATEMENT_TYPE}, a non-empty `subject` list
 * whose entries have a string `name` and a `digest` object of lowercase hex strings including a
 * 64-character `sha256`, a non-empty string `predicateType`, and `predicate` an object when
 * present. Unknown fields are ignored, as the spec requires of consumers (they stay on the object).
 * The text is parsed strictly (`parseStrictJson` with fractions: a duplicate key, a byte-order
 * mark, a carriage return or a lone surrogate is refused).
 *
 * @param bytes UTF-8 JSON
 * @returns the statement
 * @throws {InputError} `BAD_STATEMENT` naming the first problem
 * @example
 * ```ts
 * import { parseStatement } from "./statement.ts";
 * const text = JSON.stringify({
 *   _type: "https://in-toto.io/Statement/v1",
 *   subject: [{ name: "x", digest: { sha256: "ab".repeat(32) } }],
 *   predicateType: "https://example.com/p/v1", predicate: {}, extra: 1,
 * });
 * if (parseStatement(new TextEncoder().encode(text)).subject.length !== 1) throw new Error();
 * ```
 */
export function parseStatement(bytes: Uint8Array): Statement {
  let value: unknown;
  try {
    value = parseStrictJson(
      new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes),
      { fractions: true },
    );
  } catch (e) {
    _bad(`not UTF-8 JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  if (!_isObject(value)) _bad("not a JSON object");
  if (value._type !== STATEMENT_TYPE) _bad(`'_type' is not '${STATEMENT_TYPE}'`);
  const subject = value.subject;
  if (!Array.isArray(subject) || subject.length === 0) _bad("'subject' is not a non-empty array");
  subject.forEach((s: unknown, i) => _checkSubject(s, `subject[${i}]`));
  if (typeof value.predicateType !== "string" || value.predicateType === "") {
    _bad("'predicateType' is not a non-empty string");
  }
  if (value.predicate !== undefined && !_isObject(value.predicate)) {
    _bad("'predicate' is not an object");
  }
  // Unknown top-level fields are kept (in-toto allows them); the typed ones were checked above.
  return {
    ...value,
    _type: STATEMENT_TYPE,
    subject: subject as readonly StatementSubject[], // each checked by _checkSubject
    predicateType: value.predicateType,
    ...(value.predicate === undefined
      ? {}
      : { predicate: value.predicate as Record<string, unknown> }),
  };
}

/**
 * Encodes a statement as the bytes that go into an envelope's payload: RFC 8785 canonical JSON
 * (the one statement encoder; verdicts, claims and any other predicate go through it).
 *
 * DSSE signs these exact bytes, so a reader needs no canonical form; the canonical form makes the
 * payload a function of the statement's content alone (key order never matters), so the same
 * statement signed with the same Ed25519 key gives the same attestation bytes. Numbers that are
 * not integers are written as RFC 8785 §3.2.2.3 prescribes; a predicate that must not hold any
 * (the verdict) refuses them in its own parser.
 *
 * @param statement the statement
 * @returns UTF-8 bytes
 * @throws {TypeError} when the statement has no JSON form (cycle, bigint, NaN, lone surrogate)
 * @example
 * ```ts
 * import { encodeStatement, parseStatement, STATEMENT_TYPE } from "./statement.ts";
 * const st = { _type: STATEMENT_TYPE, subject: [{ name: "a", digest: { sha256: "0".repeat(64) } }],
 *   predicateType: "https://example.com/p/v1" } as const;
 * const text = new TextDecoder().decode(encodeStatement(st));
 * if (!text.startsWith('{"_type":')) throw new Error(text);
 * if (parseStatement(encodeStatement(st)).predicateType !== st.predicateType) throw new Error();
 * ```
 */
export function encodeStatement(statement: Statement): Uint8Array {
  return canonicalJson(statement, { strict: false });
}

/**
 * Parses the verified payload of a statement bitaudit signed (a verdict, an announcement): besides
 * {@link parseStatement}'s checks, the bytes must be exactly the RFC 8785 form
 * {@link encodeStatement} writes, so no two byte strings carry one signed statement and no number
 * is read from a form another reader takes otherwise (`4.0`, `3.72e2`, `131.00000000000001`,
 * which rounds to 131 here), whatever key signed it.
 *
 * @param bytes the verified payload
 * @returns the statement
 * @throws {InputError} `BAD_STATEMENT` as {@link parseStatement} does, or for bytes that are not
 *   the statement's canonical form
 * @example
 * ```ts
 * import { encodeStatement, parseSignedStatement, STATEMENT_TYPE } from "./statement.ts";
 * const st = { _type: STATEMENT_TYPE, subject: [{ name: "a", digest: { sha256: "0".repeat(64) } }],
 *   predicateType: "https://example.com/p/v1", predicate: { k: 4 } } as const;
 * if (parseSignedStatement(encodeStatement(st)).predicateType !== st.predicateType) throw new Error();
 * const loose = new TextEncoder().encode(new TextDecoder().decode(encodeStatement(st)).replace("4", "4.0"));
 * let refused = false;
 * try { parseSignedStatement(loose); } catch { refused = true; }
 * if (!refused) throw new Error("4.0 read as 4");
 * ```
 */
export function parseSignedStatement(bytes: Uint8Array): Statement {
  const st = parseStatement(bytes);
  let canonical: Uint8Array;
  try {
    canonical = encodeStatement(st);
  } catch (e) {
    // A value the canonical form cannot write (canonicalJson's TypeError; the parser refuses
    // the ones known): no signed statement, whoever signed it. Anything else is a bug.
    if (!(e instanceof TypeError)) throw e;
    return _bad(`the payload has no canonical form (RFC 8785): ${e.message}`);
  }
  const at = _firstDifference(canonical, bytes);
  if (at !== -1) {
    _bad(
      `the payload is not in the canonical form (RFC 8785) it is signed in: byte ${at} differs`,
    );
  }
  return st;
}

function _firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

function _checkSubject(s: unknown, where: string): void {
  if (!_isObject(s)) _bad(`'${where}' is not an object`);
  if (typeof s.name !== "string") _bad(`'${where}.name' is not a string`);
  const digest = s.digest;
  if (!_isObject(digest)) _bad(`'${where}.digest' is not an object`);
  for (const [alg, hex] of Object.entries(digest)) {
    if (typeof hex !== "string" || !/^(?:[0-9a-f]{2})+$/.test(hex)) {
      _bad(`'${where}.digest.${alg}' is not lowercase hex`);
    }
  }
  if (typeof digest.sha256 !== "string" || digest.sha256.length !== 64) {
    _bad(`'${where}.digest.sha256' is missing or not 64 hex characters`);
  }
}

function _isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function _bad(why: string): never {
  throw new InputError("BAD_STATEMENT", `Cannot read statement: ${why}`);
}
