/**
 * Shared pieces of the differential fuzzers that hold the engine's fast paths (the wasm GEMM
 * kernel, its pools and row blocks, the FA2 tile softmax and instruction models, FA2 launches on
 * the pool) to the TypeScript references: a generator seeded from (seed, index), so that any case
 * a failure names is rebuilt alone; 16-bit and FP32 patterns whose leading bit sits at a chosen
 * exponent; and a tally whose assertion names the seed and the first differing cases. The case
 * count is `fuzzRuns` (tests/hostile/_fuzz.ts), scaled by `BITAUDIT_FUZZ_SCALE` (`deno task
 * test:fuzz`).
 */
import assert from "node:assert/strict";
import { rng } from "./_engine_fixture.ts";

/** A case's generator: xorshift32 seeded from (seed, index). */
export class Draw {
  /** The next 32-bit draw. */
  readonly next: () => number;
  /**
   * @param seed the run's seed
   * @param index the case's index in the run
   */
  constructor(seed: number, index: number) {
    // murmur3's finaliser: nearby (seed, index) pairs give unrelated streams.
    let h = (Math.imul(seed, 0x9e3779b1) + Math.imul(index + 1, 0x85ebca6b)) | 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    this.next = rng((h ^ (h >>> 16)) >>> 0);
  }
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + (this.next() % (hi - lo + 1));
  }
  /** One of `xs`. */
  pick<T>(xs: readonly T[]): T {
    return xs[this.next() % xs.length] as T;
  }
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() / 2 ** 32 < p;
  }
  /** 0 or 1. */
  bit(): number {
    return this.next() & 1;
  }
}

/** The 16-bit input formats of the tensor-core datapaths. */
export type HalfFormat = "bf16" | "fp16";

/** Fraction bits of each 16-bit format. */
export const FRAC_BITS = { bf16: 7, fp16: 10 } as const;
/** Exponent bias of each 16-bit format. */
export const BIAS = { bf16: 127, fp16: 15 } as const;

/**
 * A 16-bit pattern whose leading bit has unbiased exponent `top`: the largest finite exponent
 * above the range, a subnormal below it, the smallest subnormal below that. The fraction is all
 * zeros, all ones or random.
 *
 * @param r the case's generator
 * @param fmt bf16 or fp16
 * @param top the leading bit's exponent
 * @param sign 0 or 1 (default drawn)
 * @returns the pattern
 */
export function halfAt(r: Draw, fmt: HalfFormat, top: number, sign: number = r.bit()): number {
  const fb = FRAC_BITS[fmt];
  const bias = BIAS[fmt];
  const sg = sign << 15;
  const field = Math.min(top + bias, 2 * bias);
  const frac = r.pick([0, (1 << fb) - 1, r.next() & ((1 << fb) - 1), r.next() & ((1 << fb) - 1)]);
  if (field <= 0) {
    const lead = top - (1 - bias) + fb;
    if (lead < 0) return sg | 1;
    return sg | (1 << lead) | (r.next() & ((1 << lead) - 1));
  }
  return sg | (field << fb) | frac;
}

/**
 * A 16-bit infinity or NaN (random payload and sign).
 *
 * @param r the case's generator
 * @param fmt bf16 or fp16
 * @returns the pattern
 */
export function halfSpecial(r: Draw, fmt: HalfFormat): number {
  const fb = FRAC_BITS[fmt];
  const inf = (r.bit() << 15) | ((2 * BIAS[fmt] + 1) << fb);
  return r.chance(0.5) ? inf : inf | (1 + (r.next() % ((1 << fb) - 1)));
}

/**
 * An FP32 pattern whose leading bit has unbiased exponent `top` (clamped like {@link halfAt}).
 *
 * @param r the case's generator
 * @param top the leading bit's exponent
 * @param sign 0 or 1 (default drawn)
 * @returns the pattern
 */
export function fp32At(r: Draw, top: number, sign: number = r.bit()): number {
  const sg = sign << 31;
  const field = top + 127;
  if (field >= 255) return (sg | 0x7f7fffff) >>> 0;
  if (field <= 0) {
    const lead = top + 126 + 23;
    if (lead < 0) return (sg | 1) >>> 0;
    return (sg | (1 << lead) | (r.next() & ((1 << lead) - 1))) >>> 0;
  }
  const frac = r.pick([0, 0x7fffff, r.next() & 0x7fffff]);
  return (sg | (field << 23) | frac) >>> 0;
}

/**
 * A pattern in hex, `0x` and `digits` digits.
 *
 * @param x the pattern
 * @param digits digits to pad to (4 for 16-bit patterns, 8 for FP32)
 * @returns e.g. `0x7fc00000`
 */
export function hex(x: number, digits: number): string {
  return "0x" + (x >>> 0).toString(16).padStart(digits, "0");
}

/**
 * The first element where two pattern arrays differ, as text.
 *
 * @param name the array's name
 * @param want the reference's patterns
 * @param got the fast path's patterns
 * @param digits hex digits of a pattern (default 8)
 * @returns "" when they are equal (both absent counts as equal), else e.g.
 *   `lse[3] want 0x... got 0x...`
 */
export function firstDiff(
  name: string,
  want: ArrayLike<number> | undefined,
  got: ArrayLike<number> | undefined,
  digits = 8,
): string {
  if (want === undefined && got === undefined) return "";
  if (want === undefined || got === undefined || want.length !== got.length) {
    return `${name}: length ${want?.length} wanted, ${got?.length} got`;
  }
  for (let i = 0; i < want.length; i++) {
    if (want[i] !== got[i]) {
      return `${name}[${i}] want ${hex(want[i]!, digits)} got ${hex(got[i]!, digits)}`;
    }
  }
  return "";
}

/**
 * Counts a fuzz run's cases, the ones that differ and what they covered; its assertion names the
 * seed and the first few differing cases.
 */
export class Tally {
  /** Cases checked. */
  cases = 0;
  /** Cases that differ. */
  differing = 0;
  readonly #first: string[] = [];
  readonly #seen = new Map<string, number>();
  /**
   * @param what the fast path and its reference, e.g. `GemmPool.kWalk() vs kWalkReference()`
   * @param seed the run's seed
   */
  constructor(readonly what: string, readonly seed: number) {}
  /**
   * Records one checked case.
   *
   * @param label how to rebuild the case (its index and drawn parameters)
   * @param diff "" when the fast path matched, else the first difference
   */
  check(label: string, diff: string): void {
    this.cases++;
    if (diff === "") return;
    this.differing++;
    if (this.#first.length < 3) this.#first.push(`${label}: ${diff}`);
  }
  /**
   * Counts one case of a coverage class (a mode, a kind of result).
   *
   * @param key the class
   */
  saw(key: string): void {
    this.#seen.set(key, (this.#seen.get(key) ?? 0) + 1);
  }
  /**
   * Asserts that no case differed and that each of `keys` was seen at least `min` times.
   *
   * @param keys coverage classes the run must have reached
   * @param min cases each must have (default 1)
   * @throws {AssertionError} naming the seed and the first differing cases
   */
  assertClean(keys: readonly string[] = [], min = 1): void {
    assert.equal(
      this.differing,
      0,
      `${this.what}, seed ${this.seed}: ${this.differing} of ${this.cases} cases differ; ` +
        `first:\n${this.#first.join("\n")}`,
    );
    for (const key of keys) {
      const n = this.#seen.get(key) ?? 0;
      assert.ok(n >= min, `${this.what}, seed ${this.seed}: ${n} cases of ${key}, want >= ${min}`);
    }
  }
}
