/**
 * Strict JSON parsing for every document that is signed, committed to, or otherwise read from
 * outside: RFC 8259 grammar plus the rules that make a parsed value stand for exactly one text's
 * meaning. Refused: a duplicate key in any object (another parser could keep the other value), a
 * byte-order mark, a carriage return (outside strings; inside strings it must be escaped anyway;
 * `carriageReturns` reads it as whitespace),
 * a lone UTF-16 surrogate (raw or as `\uXXXX`), a number past the double range (`1e309`, which
 * would read as an infinity), and, where `fractions` does not allow it, any number that is
 * not written as a plain decimal integer (`8.0`, `8e0` and `-0` are refused, as are integers
 * beyond 2^53 - 1 in magnitude). Nesting is limited so hostile input cannot exhaust the stack, and
 * the value count may be, as may the places values take (`admit`: a document of a known shape is
 * refused at its first value out of place, before the rest is read).
 *
 * @module
 */

/** Default limit on nesting depth (objects and arrays). */
export const MAX_JSON_DEPTH = 64;

/** A strict-JSON refusal: what was wrong and where (the JSON path and the character offset). */
export class StrictJsonError extends SyntaxError {
  /** Path of the value being read, e.g. `$.predicate.batch.size`. */
  readonly path: string;
  /** Why, one short phrase, e.g. `duplicate key 'size'`. */
  readonly reason: string;
  /** UTF-16 offset in the text. */
  readonly offset: number;
  /**
   * True when the text is valid RFC 8259 JSON refused by a strictness rule (duplicate key, number
   * form, surrogate, byte-order mark, carriage return, depth, value count, `admit`); false for a
   * grammar error.
   */
  readonly strict: boolean;

  /**
   * @param reason why the text is refused
   * @param where `path` and `offset` of the refusal, `strict` for a strictness rule
   */
  constructor(reason: string, where: { path: string; offset: number; strict?: boolean }) {
    super(`Cannot parse JSON: ${reason} at '${where.path}' (offset ${where.offset})`);
    this.name = "StrictJsonError";
    this.path = where.path;
    this.reason = reason;
    this.offset = where.offset;
    this.strict = where.strict ?? false;
  }
}

/** Options of {@link parseStrictJson}. */
export interface StrictJsonOptions {
  /**
   * Read numbers as `JSON.parse` does, leaving their validation to the caller (default false:
   * plain decimal integers only, in the safe range, no `-0`); or, given a function, wherever it
   * returns true for the number's path (its segments, as `admit` gets them: look, do not keep).
   */
  readonly fractions?: boolean | ((path: readonly (string | number)[]) => boolean);
  /** Largest nesting depth (default {@link MAX_JSON_DEPTH}). */
  readonly maxDepth?: number;
  /**
   * Most values (every number, string, literal, array and object counts one) the text may hold
   * (default: no limit beyond its length). Bounds what the parsed value and any later walk over
   * it cost, whatever the text's byte length allowed.
   */
  readonly maxValues?: number;
  /**
   * Says whether a value may stand where it begins, before it is read: called with the path of
   * each value (the root's is empty; then a key per object level and an index per array level)
   * and its kind (from its first character), it returns undefined to read on or a reason, which
   * refuses the text there (a strict refusal naming the path). A reader of a known shape stops at
   * the first value out of place, so a text of another shape costs no more than what it had in
   * place. The array is the parser's own and changes as it reads: look, do not keep.
   */
  readonly admit?: (path: readonly (string | number)[], kind: JsonKind) => string | undefined;
  /**
   * Read a carriage return between tokens as the whitespace RFC 8259 makes it (default false:
   * refused, since no text bitaudit writes or signs holds one). For formats whose reference
   * reader takes it, so that the caller can tell such a text apart instead of refusing it.
   */
  readonly carriageReturns?: boolean;
}

/**
 * What a value is, from its first character: `other` for `true`, `false`, `null` and characters
 * that begin no value (the parse refuses those after `admit` has let them through).
 */
export type JsonKind = "object" | "array" | "string" | "number" | "other";

/**
 * Parses one JSON text strictly.
 *
 * @param text the JSON text (already UTF-8 decoded, byte-order mark kept so it can be refused)
 * @param options `fractions`, `maxDepth`, `maxValues`, `admit`
 * @returns the value (objects are plain objects whose own keys are exactly the text's keys)
 * @throws {StrictJsonError} naming the reason, the JSON path and the offset
 * @example
 * ```ts
 * import { parseStrictJson, StrictJsonError } from "./json_strict.ts";
 * const v = parseStrictJson('{"a":[1,"x"]}') as { a: unknown[] };
 * if (v.a[0] !== 1) throw new Error();
 * let why = "";
 * try { parseStrictJson('{"a":1,"a":2}'); } catch (e) { why = (e as StrictJsonError).reason; }
 * if (why !== "duplicate key 'a'") throw new Error(why);
 * ```
 */
export function parseStrictJson(text: string, options: StrictJsonOptions = {}): unknown {
  const p = new _Parser(text, options.fractions ?? false, options.maxDepth ?? MAX_JSON_DEPTH);
  p.maxValues = p.valuesLeft = options.maxValues ?? Infinity;
  p.admit = options.admit;
  p.carriageReturns = options.carriageReturns ?? false;
  if (text.charCodeAt(0) === 0xfeff) p.fail("byte-order mark", true);
  const value = p.value(0);
  p.space();
  if (p.i !== text.length) p.fail("text after the value");
  return value;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
// deno-lint-ignore no-control-regex -- raw control characters end a plain run (RFC 8259 §7)
const PLAIN = /[^"\\\u0000-\u001f]*/y;

/** Digits of a plain integer that are exact in a double whatever they are (10^15 < 2^53). */
const EXACT_DIGITS = 15;

class _Parser {
  i = 0;
  /** The `maxValues` option, and how many values the text may still hold. */
  maxValues = Infinity;
  valuesLeft = Infinity;
  /** The `admit` option. */
  admit: StrictJsonOptions["admit"];
  /** The `carriageReturns` option. */
  carriageReturns = false;
  /**
   * The JSON path of the value being read, one segment per level (a key, or an array index);
   * written out only when a refusal names it, so reading costs no string per value.
   */
  readonly segments: (string | number)[] = [];
  constructor(
    readonly text: string,
    readonly fractions: boolean | ((path: readonly (string | number)[]) => boolean),
    readonly maxDepth: number,
  ) {}

  /** The path of the current value: `$`, then `.key` or `[index]` per level. */
  path(): string {
    let out = "$";
    for (const s of this.segments) out += typeof s === "number" ? `[${s}]` : `.${s}`;
    return out;
  }

  fail(reason: string, strict = false): never {
    throw new StrictJsonError(reason, { path: this.path(), offset: this.i, strict });
  }

  space(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.i);
      if (c === 0x20 || c === 0x0a || c === 0x09) this.i++;
      else if (c === 0x0d) {
        if (!this.carriageReturns) this.fail("carriage return", true);
        this.i++;
      } else return;
    }
  }

  value(depth: number): unknown {
    if (--this.valuesLeft < 0) this.fail(`more than ${this.maxValues} values`, true);
    this.space();
    const c = this.text.charCodeAt(this.i);
    if (this.admit !== undefined) {
      const refused = this.admit(this.segments, _kind(c));
      if (refused !== undefined) this.fail(refused, true);
    }
    if (c === 0x7b || c === 0x5b) { // { [
      if (depth >= this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth}`, true);
      return c === 0x7b ? this.object(depth + 1) : this.array(depth + 1);
    }
    if (c === 0x22) return this.string();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    for (const [word, v] of LITERALS) {
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    return this.fail(Number.isNaN(c) ? "unexpected end" : "unexpected character");
  }

  object(depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.i++;
    this.space();
    if (this.text[this.i] === "}") {
      this.i++;
      return out;
    }
    for (;;) {
      this.space();
      if (this.text[this.i] !== '"') this.fail("expected a key");
      const key = this.string();
      if (Object.hasOwn(out, key)) this.fail(`duplicate key '${key}'`, true);
      this.segments.push(key);
      this.space();
      if (this.text[this.i] !== ":") this.fail("expected ':'");
      this.i++;
      const v = this.value(depth);
      if (key === "__proto__") {
        // defineProperty: a key named `__proto__` stays an own data property, as in JSON.parse.
        Object.defineProperty(out, key, {
          value: v,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else {
        out[key] = v;
      }
      this.segments.pop();
      if (this.close("}")) return out;
    }
  }

  array(depth: number): unknown[] {
    const out: unknown[] = [];
    this.i++;
    this.space();
    if (this.text[this.i] === "]") {
      this.i++;
      return out;
    }
    for (;;) {
      this.segments.push(out.length);
      out.push(this.value(depth));
      this.segments.pop();
      if (this.close("]")) return out;
    }
  }

  close(end: "}" | "]"): boolean {
    this.space();
    const c = this.text[this.i];
    this.i++;
    if (c === end) return true;
    if (c === ",") return false;
    this.i--;
    return this.fail(`expected ',' or '${end}'`);
  }

  /**
   * Reads a string token in one step: the scan checks every escape and refuses a raw control
   * character, then the token is decoded whole (`JSON.parse` of its text when it holds an escape,
   * else one slice), so a string of n escapes costs one string, not n concatenated pieces.
   */
  string(): string {
    const start = this.i;
    this.i++;
    let escaped = false;
    for (;;) {
      PLAIN.lastIndex = this.i;
      PLAIN.test(this.text);
      this.i = PLAIN.lastIndex;
      const c = this.text.charCodeAt(this.i);
      if (c === 0x22) break; // "
      if (c !== 0x5c) { // a backslash begins an escape
        this.fail(Number.isNaN(c) ? "unterminated string" : "control character in string");
      }
      this.escape();
      escaped = true;
    }
    this.i++;
    const token = this.text.slice(start, this.i);
    const out = escaped ? JSON.parse(token) as string : token.slice(1, -1);
    if (!out.isWellFormed()) this.fail("lone surrogate in string", true);
    return out;
  }

  /** Checks the escape at the cursor (RFC 8259 §7) and steps over it. */
  escape(): void {
    const e = this.text.charCodeAt(this.i + 1);
    this.i += 2;
    if (SIMPLE_ESCAPES.includes(e)) return;
    if (e !== 0x75 || !_isHex4(this.text, this.i)) this.fail("bad escape"); // u
    this.i += 4;
  }

  number(): number {
    const f = this.fractions;
    const fractions = typeof f === "function" ? f(this.segments) : f;
    const plain = fractions ? -1 : this.plainInteger();
    if (plain >= 0) return plain;
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.text);
    if (m === null) return this.fail("bad number");
    const lit = m[0];
    if ((m[1] !== undefined || m[2] !== undefined) && !fractions) {
      this.fail(`non-integer number form '${lit}'`, true);
    }
    const v = Number(lit);
    // A number past the double range reads as an infinity, which no JSON value is (and no
    // canonical form can write back): refused wherever fractions are allowed too.
    if (!Number.isFinite(v)) {
      this.fail(`number '${lit.slice(0, 40)}' beyond the double range`, true);
    }
    if (!fractions) {
      if (lit === "-0") this.fail("negative zero", true);
      if (!Number.isSafeInteger(v)) this.fail(`integer '${lit}' beyond 2^53 - 1`, true);
    }
    this.i = NUMBER.lastIndex;
    return v;
  }

  /**
   * The common case of `number` without the expression: a non-negative integer of at most
   * EXACT_DIGITS digits, no leading zero (other than `0` itself), not followed by a fraction or
   * an exponent. Its value is summed digit by digit, exact in a double. Returns -1 (consuming
   * nothing) for anything else, which the general path then reads or refuses.
   */
  plainInteger(): number {
    const t = this.text;
    let j = this.i;
    let v = 0;
    for (; j < t.length && j - this.i <= EXACT_DIGITS; j++) {
      const d = t.charCodeAt(j) - 0x30;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
    }
    const n = j - this.i;
    if (n === 0 || n > EXACT_DIGITS || (n > 1 && t.charCodeAt(this.i) === 0x30)) return -1;
    const next = t.charCodeAt(j);
    if (next === 0x2e || next === 0x65 || next === 0x45) return -1; // . e E
    this.i = j;
    return v;
  }
}

/** The kind of the value whose first character is `c`. */
function _kind(c: number): JsonKind {
  if (c === 0x7b) return "object"; // {
  if (c === 0x5b) return "array"; // [
  if (c === 0x22) return "string"; // "
  return c === 0x2d || (c >= 0x30 && c <= 0x39) ? "number" : "other";
}

const LITERALS = [["true", true], ["false", false], ["null", null]] as const;

/** The characters that may follow a backslash on their own: `"` `\\` `/` `b` `f` `n` `r` `t`. */
const SIMPLE_ESCAPES: readonly number[] = [0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74];

/** Whether `text` holds four hexadecimal digits from `at`. */
function _isHex4(text: string, at: number): boolean {
  for (let j = at; j < at + 4; j++) {
    const c = text.charCodeAt(j); // NaN past the end: no digit
    const digit = c >= 0x30 && c <= 0x39;
    if (!digit && !((c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}
