/**
 * Collects mismatches of a bulk comparison and fails once with the first few, so exhaustive
 * loops stay fast and a failure names the inputs and both bit patterns.
 *
 * @module
 */

/** Accumulates labelled mismatches. */
export class Mismatches {
  /** How many comparisons were made. */
  checked = 0;
  /** How many differed. */
  failed = 0;
  readonly #first: string[] = [];
  readonly #limit: number;

  /** @param limit how many mismatches to quote in the failure message */
  constructor(limit = 8) {
    this.#limit = limit;
  }

  /**
   * Records one comparison.
   *
   * @param ok whether expected and actual agree
   * @param describe builds the message lazily (only for failures)
   */
  check(ok: boolean, describe: () => string): void {
    this.checked += 1;
    if (ok) return;
    this.failed += 1;
    if (this.#first.length < this.#limit) this.#first.push(describe());
  }

  /**
   * Throws when any comparison failed.
   *
   * @param what name of the property checked, for the message
   * @throws {Error} listing the count and the first mismatches
   * @example
   * ```ts
   * import { Mismatches } from "./_mismatches.ts";
   * const m = new Mismatches();
   * m.check(1 + 1 === 2, () => "arithmetic");
   * m.assertNone("sums");
   * ```
   */
  assertNone(what: string): void {
    if (this.checked === 0) throw new Error(`${what}: nothing was checked`);
    if (this.failed === 0) return;
    throw new Error(
      `${what}: ${this.failed} of ${this.checked} mismatched; first:\n  ${
        this.#first.join("\n  ")
      }`,
    );
  }
}
