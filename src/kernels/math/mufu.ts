/**
 * The MUFU interface the libdevice recipes call, and the non-FTZ forms ptxas builds around it.
 *
 * @module
 */

/**
 * The special-function unit as the libdevice recipes see it: `ex2.approx.ftz.f32`,
 * `rcp.approx.ftz.f32` and `rsqrt.approx.ftz.f32` on FP32 patterns. The `Sfu` of
 * `src/hardware/sfu` (table model or `ieee` mode) satisfies it structurally.
 */
export interface Mufu {
  /** `ex2.approx.ftz.f32`: 2^x. */
  readonly ex2: (bits: number) => number;
  /** `rcp.approx.ftz.f32`: 1/x. */
  readonly rcp: (bits: number) => number;
  /** `rsqrt.approx.ftz.f32`: 1/sqrt(x). */
  readonly rsqrt: (bits: number) => number;
}

const _f32 = new Float32Array(1);
const _u32 = new Uint32Array(_f32.buffer);

function _value(bits: number): number {
  _u32[0] = bits;
  return _f32[0] as number;
}

function _bits(x: number): number {
  _f32[0] = x;
  return _u32[0] as number;
}

/**
 * `ex2.approx.f32` (no `.ftz`), as ptxas expands it around MUFU.EX2 so that subnormal results
 * survive: `p = !(x >= -126)` is false for NaN; if `p`, `x *= 0.5`, then `r = MUFU.EX2(x)`, and if
 * `p`, `r = r * r` (FMUL, round to nearest, no FTZ). The expansion is recalled from SASS dumps of
 * sm_80/sm_90 code and is not yet checked on this project's GPU.
 *
 * @param mufu the MUFU model
 * @param bits FP32 pattern of x
 * @returns FP32 pattern of 2^x
 * @example
 * ```ts
 * import { ex2ApproxF32 } from "./mufu.ts";
 * const half = () => 0x3f000000; // a stand-in MUFU whose ex2 always returns 0.5
 * const fake = { ex2: half, rcp: half, rsqrt: half };
 * if (ex2ApproxF32(fake, 0x3f800000) !== 0x3f000000) throw new Error(); // x >= -126: bare MUFU
 * if (ex2ApproxF32(fake, 0xc3000000) !== 0x3e800000) throw new Error(); // x < -126: squared
 * ```
 */
export function ex2ApproxF32(mufu: Mufu, bits: number): number {
  const x = _value(bits);
  if (x >= -126 || x !== x) return mufu.ex2(bits);
  const r = _value(mufu.ex2(_bits(x * 0.5)));
  return _bits(Math.fround(r * r));
}

/**
 * `rsqrt.approx.f32` (no `.ftz`), as ptxas expands it around MUFU.RSQ so that subnormal inputs
 * work: if `|x| < 2^-126` (false for NaN), `x *= 2^24` and the MUFU result is multiplied by 2^12
 * (both FMUL, exact scalings). Recalled from SASS dumps, not yet checked on this project's GPU.
 *
 * @param mufu the MUFU model
 * @param bits FP32 pattern of x
 * @returns FP32 pattern of 1/sqrt(x)
 * @example
 * ```ts
 * import { rsqrtApproxF32 } from "./mufu.ts";
 * const one = () => 0x3f800000; // a stand-in MUFU whose rsqrt always returns 1.0
 * const fake = { ex2: one, rcp: one, rsqrt: one };
 * if (rsqrtApproxF32(fake, 0x3f800000) !== 0x3f800000) throw new Error(); // normal: bare MUFU
 * if (rsqrtApproxF32(fake, 0x00000001) !== 0x45800000) throw new Error(); // subnormal: times 2^12
 * ```
 */
export function rsqrtApproxF32(mufu: Pick<Mufu, "rsqrt">, bits: number): number {
  const x = _value(bits);
  if (!(Math.abs(x) < 2 ** -126)) return mufu.rsqrt(bits);
  const r = _value(mufu.rsqrt(_bits(x * 2 ** 24)));
  return _bits(Math.fround(r * 4096));
}
