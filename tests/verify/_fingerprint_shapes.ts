/**
 * Fingerprint shapes a model record over the tiny dense checkpoint contradicts, for the tests that
 * hold such a record's contradictions before anything else is said of it.
 */
import type { ClaimPredicate } from "../../src/claims/mod.ts";

/** The tiny dense checkpoint's hidden size (`hidden_size` of its config.json). */
export const TINY_DENSE_HIDDEN = 256;

/** A falsification: what it bends, the patch bending a record, and the reason its FAIL gives. */
export type FingerprintShapeCase = [
  string,
  (p: { fingerprint: ClaimPredicate["fingerprint"] }) => void,
  RegExp,
];

/**
 * The record's fingerprint with one row more than it computes, and with a width other than the
 * checkpoint's hidden size; each FAILs the record as contradicting itself, naming both shapes.
 *
 * @param rows the rows the record computes (its positions' count)
 * @returns the two falsifications
 */
export function fingerprintShapeCases(rows: number): FingerprintShapeCase[] {
  return [
    [
      "fingerprint rows",
      (p) => p.fingerprint = { ...p.fingerprint, shape: [rows + 1, TINY_DENSE_HIDDEN] },
      /^record contradicts itself: its fingerprint shape is \[\d+, 256\], .* computes \[\d+, hidden\]$/,
    ],
    [
      "fingerprint width (the checkpoint's)",
      (p) => p.fingerprint = { ...p.fingerprint, shape: [rows, 999] },
      /^record contradicts itself: its fingerprint shape is \[\d+, 999\], .* computes \[\d+, 256\]$/,
    ],
  ];
}
