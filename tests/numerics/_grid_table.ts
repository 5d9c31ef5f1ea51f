/**
 * Whole-grid tables of the small formats for the test-only exact reference: every finite value
 * (plus the point past the largest) enumerated once as a BigInt in units of half the smallest
 * quantum, so that the reference's bisection compares plain integers.
 *
 * @module
 */
import type { Dyadic } from "./_dyadic.ts";
import { indexValue, maxFiniteIndex, type RefFormat } from "./_ref_formats.ts";

/** Where a magnitude falls on a format's grid. */
export interface Neighbours {
  /** Largest magnitude index whose value is <= the magnitude (`maxFiniteIndex + 1` if beyond). */
  readonly lo: number;
  /** True when the magnitude equals the value at `lo`. */
  readonly exact: boolean;
  /** Sign of `magnitude - midpoint(lo, lo + 1)`; meaningless when `exact`. */
  readonly vsMid: -1 | 0 | 1;
}

interface _GridTable {
  /** Every grid value `value(i) / 2^unitExp`, i in [0, maxFiniteIndex + 1] (all integers). */
  readonly values: bigint[];
  /** Half the smallest quantum, so that values and midpoints are integers in this unit. */
  readonly unitExp: number;
}
const _tables = new Map<string, _GridTable>();

/** Enumerates the whole grid of a small format once, in units of half its smallest quantum. */
function _gridTable(f: RefFormat): _GridTable {
  const cached = _tables.get(f.name);
  if (cached !== undefined) return cached;
  const unitExp = indexValue(f, 1).exp - 1;
  const values: bigint[] = [];
  for (let i = 0; i <= maxFiniteIndex(f) + 1; i++) {
    const v = indexValue(f, i);
    values.push(v.num << BigInt(v.exp - unitExp));
  }
  const table = { values, unitExp };
  _tables.set(f.name, table);
  return table;
}

/**
 * Locates a magnitude on a small format's grid by bisecting the cached table.
 *
 * @param f format of at most 16 bits
 * @param mag non-negative exact magnitude
 * @returns the lower neighbour, exactness and the comparison with the midpoint
 */
export function tableNeighbours(f: RefFormat, mag: Dyadic): Neighbours {
  const { values, unitExp } = _gridTable(f);
  // mag = (whole + frac) units with 0 <= frac < 1; `rest` says whether frac > 0.
  const whole = mag.exp >= unitExp
    ? mag.num << BigInt(mag.exp - unitExp)
    : mag.num >> BigInt(unitExp - mag.exp);
  const rest = mag.exp >= unitExp ? false : (whole << BigInt(unitExp - mag.exp)) !== mag.num;
  const top = values.length - 1;
  if (whole >= (values[top] as bigint)) return { lo: top, exact: false, vsMid: 1 };
  let lo = 0; // invariant: values[lo] <= mag < values[hi]; integers compare with floor(mag)
  let hi = top;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if ((values[mid] as bigint) <= whole) lo = mid;
    else hi = mid;
  }
  const a = values[lo] as bigint;
  const midpoint = (a + (values[lo + 1] as bigint)) >> 1n; // exact: values are even in this unit
  const vsMid = whole < midpoint ? -1 : whole > midpoint || rest ? 1 : 0;
  return { lo, exact: whole === a && !rest, vsMid };
}
