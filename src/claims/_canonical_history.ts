/**
 * The fast way in for a serving-history blob: a reader of exactly the canonical (RFC 8785) bytes
 * of a valid history, straight from the bytes, with no JSON tree in between. A history at the
 * limits (4,194,304 entries in 52 MiB) took 2.6 GB and 5 s through the generic strict parse and
 * the canonical re-encoding it is compared with; this reader holds only the passes it returns.
 *
 * It accepts a byte string only when it is the canonical encoding of a history within the limits:
 * keys in RFC 8785 order (`passes` before `schema`; `cascadePrefix`, `entries`, `expertRows`,
 * `logitsRows`, `rows`, `self`), no whitespace, integers in their shortest decimal form, every
 * bound of the generic check. For anything else it returns null and the generic check, which
 * names the first problem, decides: so it can only be faster, never more lenient (a test holds the
 * two to the same answers on valid and mutated blobs).
 *
 * @module
 */
import type { HistoryPass } from "./history_pass.ts";

/** The bounds a history is held to (`serving_history.ts` states them). */
export interface HistoryBounds {
  /** The schema string. */
  readonly schema: string;
  /** Most passes. */
  readonly passes: number;
  /** Most entries over all passes. */
  readonly entries: number;
  /** Most entries of one pass. */
  readonly passEntries: number;
  /** Most MoE layers of a pass's `expertRows`. */
  readonly moeLayers: number;
  /** Most experts of one MoE layer. */
  readonly experts: number;
}

/** Largest value of each integer field (as the generic check bounds them). */
const QUERY_MAX = 1 << 20;
const CACHED_MAX = 1 << 24;
const ROWS_MAX = 1 << 20;
const LOGITS_MAX = 4096;
const EXPERT_ROWS_MAX = 1 << 20;
const CASCADE_MAX = 1 << 24;

const _ascii = (s: string) => new TextEncoder().encode(s);
const OPEN = _ascii('{"passes":[');
const CASCADE = _ascii('{"cascadePrefix":');
const ENTRIES = _ascii('"entries":[');
const EXPERTS = _ascii('"expertRows":[');
const LOGITS = _ascii('"logitsRows":');
const ROWS = _ascii(',"rows":');
const SELF = _ascii(',"self":');

/** Thrown inside the reader where the bytes are not a canonical history; caught at its door. */
class _NotCanonical {}
const NOT = new _NotCanonical();

/**
 * Reads the canonical bytes of a valid history.
 *
 * @param bytes the blob
 * @param bounds the schema and the limits
 * @returns the passes, as the generic check builds them; null when the bytes are anything but a
 *   valid history's canonical encoding (the generic check then says what is wrong)
 * @example
 * ```ts ignore
 * const passes = readCanonicalHistory(bytes, bounds) ?? genericParse(bytes);
 * ```
 */
export function readCanonicalHistory(
  bytes: Uint8Array,
  bounds: HistoryBounds,
): HistoryPass[] | null {
  try {
    return new _Reader(bytes, bounds).history();
  } catch (e) {
    if (e === NOT) return null;
    throw e;
  }
}

class _Reader {
  at = 0;
  total = 0;
  constructor(readonly b: Uint8Array, readonly bounds: HistoryBounds) {}

  history(): HistoryPass[] {
    this.lit(OPEN);
    const passes: HistoryPass[] = [];
    if (this.b[this.at] === 0x5d) this.at++;
    else {
      for (;;) {
        if (passes.length === this.bounds.passes) throw NOT;
        passes.push(this.pass());
        if (this.byte() === 0x5d) break;
        this.back(0x2c);
      }
    }
    this.lit(_ascii(`,"schema":${JSON.stringify(this.bounds.schema)}}`));
    if (this.at !== this.b.length) throw NOT;
    return passes;
  }

  pass(): HistoryPass {
    let cascade: number | undefined;
    if (this.peek(CASCADE)) {
      this.at += CASCADE.length;
      cascade = this.int(CASCADE_MAX);
      if (cascade === 0) throw NOT;
      this.lit1(0x2c);
    } else this.lit1(0x7b);
    this.lit(ENTRIES);
    const entries: { readonly query: number; readonly cached: number }[] = [];
    for (;;) {
      if (entries.length === this.bounds.passEntries) throw NOT;
      if (++this.total > this.bounds.entries) throw NOT;
      this.lit1(0x5b);
      const query = this.int(QUERY_MAX);
      this.lit1(0x2c);
      const cached = this.int(CACHED_MAX);
      this.lit1(0x5d);
      entries.push(Object.freeze({ query, cached }));
      if (this.byte() === 0x5d) break;
      this.back(0x2c);
    }
    this.lit1(0x2c);
    let expert: (readonly number[])[] | undefined;
    if (this.peek(EXPERTS)) {
      this.at += EXPERTS.length;
      expert = this.lists();
      this.lit1(0x2c);
    }
    this.lit(LOGITS);
    const logitsRows = this.int(LOGITS_MAX);
    this.lit(ROWS);
    const rows = this.int(ROWS_MAX);
    this.lit(SELF);
    const self = this.int(entries.length - 1);
    this.lit1(0x7d);
    return Object.freeze({
      entries: Object.freeze(entries),
      self,
      rows,
      logitsRows,
      ...(expert === undefined ? {} : { expertRows: Object.freeze(expert) }),
      ...(cascade === undefined ? {} : { cascadePrefix: cascade }),
    });
  }

  /** `expertRows` after its `[`: lists of counts, through the closing `]`. */
  lists(): (readonly number[])[] {
    const out: (readonly number[])[] = [];
    if (this.b[this.at] === 0x5d) {
      this.at++;
      return out;
    }
    for (;;) {
      if (out.length === this.bounds.moeLayers) throw NOT;
      this.lit1(0x5b);
      const counts: number[] = [];
      if (this.b[this.at] === 0x5d) this.at++;
      else {
        for (;;) {
          if (counts.length === this.bounds.experts) throw NOT;
          counts.push(this.int(EXPERT_ROWS_MAX));
          if (this.byte() === 0x5d) break;
          this.back(0x2c);
        }
      }
      out.push(Object.freeze(counts));
      if (this.byte() === 0x5d) return out;
      this.back(0x2c);
    }
  }

  /** A non-negative integer in its shortest decimal form, at most `max`. */
  int(max: number): number {
    const b = this.b;
    let c = b[this.at];
    if (c === 0x30) {
      this.at++;
      c = b[this.at];
      if (c !== undefined && c >= 0x30 && c <= 0x39) throw NOT; // a leading zero
      if (max < 0) throw NOT;
      return 0;
    }
    let v = 0;
    let digits = 0;
    while (c !== undefined && c >= 0x30 && c <= 0x39) {
      // Nine digits bound every field (the largest is 2^24): more cannot be within range.
      if (++digits > 9) throw NOT;
      v = v * 10 + (c - 0x30);
      c = b[++this.at];
    }
    if (digits === 0 || v > max) throw NOT;
    return v;
  }

  /** The next byte, consumed. */
  byte(): number | undefined {
    return this.b[this.at++];
  }

  /** The byte just consumed must have been `c` (a separator read by `byte`). */
  back(c: number): void {
    if (this.b[this.at - 1] !== c) throw NOT;
  }

  lit1(c: number): void {
    if (this.b[this.at++] !== c) throw NOT;
  }

  lit(s: Uint8Array): void {
    if (!this.peek(s)) throw NOT;
    this.at += s.length;
  }

  peek(s: Uint8Array): boolean {
    const b = this.b;
    if (this.at + s.length > b.length) return false;
    for (let i = 0; i < s.length; i++) if (b[this.at + i] !== s[i]) return false;
    return true;
  }
}
