/**
 * Private helper: an FP32 pattern as an exact integer significand and exponent.
 *
 * @module
 */

/** A finite non-zero FP32 magnitude `sig * 2^exp` with `sig` in [2^23, 2^24) (normalised). */
export interface _Unpacked {
  /** Significand, an integer in [2^23, 2^24). */
  sig: number;
  /** Exponent of the significand's least significant bit. */
  exp: number;
}

/**
 * Unpacks a finite non-zero FP32 pattern, normalising subnormals.
 *
 * @param bits FP32 pattern, finite and non-zero
 * @returns the normalised significand and exponent
 */
export function _unpack(bits: number): _Unpacked {
  const field = (bits >>> 23) & 0xff;
  let sig = bits & 0x7fffff;
  let exp: number;
  if (field === 0) {
    exp = -149;
    while (sig < 0x800000) {
      sig *= 2;
      exp -= 1;
    }
  } else {
    sig += 0x800000;
    exp = field - 150;
  }
  return { sig, exp };
}
