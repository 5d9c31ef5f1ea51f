/**
 * FP32 patterns that break careless arithmetic: NaNs with payloads (quiet, signalling, negative),
 * both infinities, both zeros, the smallest and largest subnormals, the smallest normal, the
 * largest finite values, and ordinary values near 1, 2^-24 and +-127/128.
 */
export const SPECIAL_F32: readonly number[] = Object.freeze([
  0x7fc00000,
  0x7f800001,
  0xffc12345,
  0x7f800000,
  0xff800000,
  0,
  0x80000000,
  1,
  0x80000001,
  0x007fffff,
  0x00800000,
  0x7f7fffff,
  0xff7fffff,
  0x3f800000,
  0x33800000,
  0xb3800000,
  0x42fe0000,
  0xc2fe0000,
  0xc3000000,
  0x43000000,
]);
