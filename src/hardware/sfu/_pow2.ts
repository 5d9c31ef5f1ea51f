/**
 * Exact powers of two as float64, for the correctly rounded `ieee` functions' hot paths: `2 ** n`
 * with a variable `n` is a call to the engine's `Math.pow` (tens of nanoseconds), a table read is
 * one load. Built by doubling and halving from 1, which is exact in float64 over this range.
 *
 * @module
 */

/** The largest exponent held: `ieeeEx2` divides by 2^den with den ≤ 48. */
const _MAX = 48;

function _powers(step: number): Float64Array {
  const t = new Float64Array(_MAX + 1);
  t[0] = 1;
  for (let i = 1; i <= _MAX; i++) t[i] = (t[i - 1] as number) * step;
  return t;
}

/** `_POW2[i]` = 2^i exactly, for i in [0, 48]. */
export const _POW2: Float64Array = _powers(2);

/** `_POW2_NEG[i]` = 2^−i exactly, for i in [0, 48]. */
export const _POW2_NEG: Float64Array = _powers(0.5);
