/**
 * Shared pieces of the fuzzers: the fixed seed, the run count (scaled by `BITAUDIT_FUZZ_SCALE`
 * for the long run of `deno task test:fuzz`), inputs derived from valid documents by random
 * edits, and the property every parser of outside bytes must keep.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { BitauditError } from "../../src/errors.ts";

/** Fixed seed: the CI run is reproducible; failures print the path to replay. */
export const FUZZ_SEED = 19;

/** Longest a single parse may take before it counts as a hang (milliseconds). */
export const CASE_LIMIT_MS = 2000;

/**
 * Runs per parser: `base` in CI, times `BITAUDIT_FUZZ_SCALE` in the long run.
 *
 * @param base CI run count
 */
export function fuzzRuns(base: number): number {
  const scale = Number(Deno.env.get("BITAUDIT_FUZZ_SCALE") ?? "1");
  return Number.isSafeInteger(scale) && scale > 0 ? base * scale : base;
}

/** Characters that matter to the parsers (JSON syntax, escapes, surrogates, controls, BOM). */
const NASTY = [
  "{",
  "}",
  "[",
  "]",
  '"',
  ":",
  ",",
  "\\",
  "\\u",
  "\\ud800",
  "0",
  "-",
  ".",
  "e",
  "8.0",
  "1e400",
  "9007199254740993",
  "\r",
  "\n",
  "\t",
  " ",
  "\u0000",
  "\u001b[2J",
  "\ufeff",
  "\ud800",
  "true",
  "null",
  "__proto__",
  "constructor",
  "=",
  "-----",
  "A",
  "/",
  "+",
];

/**
 * Strings made from a valid document by a few random edits (insert, delete, replace, duplicate a
 * slice), plus entirely random strings now and then.
 *
 * @param valid a document the parser accepts
 * @returns the arbitrary
 */
export function mutatedText(valid: string): fc.Arbitrary<string> {
  const edit = fc.record({
    at: fc.nat({ max: Math.max(0, valid.length) }),
    len: fc.nat({ max: 12 }),
    op: fc.constantFrom("insert", "delete", "replace", "duplicate"),
    text: fc.oneof(fc.constantFrom(...NASTY), fc.string({ unit: "binary", maxLength: 6 })),
  });
  const edited = fc.array(edit, { minLength: 1, maxLength: 4 }).map((edits) => {
    let s = valid;
    for (const e of edits) {
      const at = Math.min(e.at, s.length);
      const end = Math.min(s.length, at + e.len);
      if (e.op === "insert") s = s.slice(0, at) + e.text + s.slice(at);
      else if (e.op === "delete") s = s.slice(0, at) + s.slice(end);
      else if (e.op === "replace") s = s.slice(0, at) + e.text + s.slice(end);
      else s = s.slice(0, end) + s.slice(at, end) + s.slice(end);
    }
    return s;
  });
  return fc.oneof(
    { arbitrary: edited, weight: 8 },
    { arbitrary: fc.string({ unit: "binary", maxLength: 200 }), weight: 1 },
    { arbitrary: fc.constant(valid), weight: 1 },
  );
}

/**
 * The property: parsing either succeeds or throws a coded error (or one of the `allowed`
 * built-in errors the command wraps in a coded one), never a bug's TypeError, and within
 * {@link CASE_LIMIT_MS}.
 *
 * @param parse the parser under test
 * @param allowed extra accepted error classes (e.g. `RangeError` of profile-style readers)
 */
export function refusesCleanly(
  parse: () => unknown,
  allowed: readonly (new (...a: never[]) => Error)[] = [],
): void {
  const t0 = performance.now();
  try {
    parse();
  } catch (e) {
    const ok = e instanceof BitauditError || allowed.some((c) => e instanceof c);
    assert.ok(ok, `unexpected ${(e as Error)?.name}: ${(e as Error)?.message}`);
    assert.doesNotMatch(
      (e as Error).message,
      /properties of (undefined|null)|is not a function|is not iterable|Maximum call stack/,
    );
  }
  assert.ok(performance.now() - t0 < CASE_LIMIT_MS, "parse took too long");
}

/**
 * Runs one fuzz property with the fixed seed.
 *
 * @param arb inputs
 * @param parse parser under test
 * @param options base run count, allowed built-in errors
 */
export function fuzz<T>(
  arb: fc.Arbitrary<T>,
  parse: (input: T) => unknown,
  options: { runs: number; allowed?: readonly (new (...a: never[]) => Error)[] },
): void {
  fc.assert(
    fc.property(arb, (input) => refusesCleanly(() => parse(input), options.allowed)),
    { seed: FUZZ_SEED, numRuns: fuzzRuns(options.runs) },
  );
}
