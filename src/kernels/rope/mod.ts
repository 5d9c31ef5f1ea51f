/**
 * Rotary position embedding: host `inv_freq`, cos/sin tables through libdevice `cosf`/`sinf`, and
 * the BF16 rotate-half application.
 *
 * @example
 * ```ts
 * import { applyRope, ropeInvFreq, ropeTables } from "./mod.ts";
 * const tables = ropeTables(ropeInvFreq(64, { theta: 10000 }), [0, 1]);
 * const q = new Uint16Array(2 * 64).fill(0x3f80);
 * if (applyRope(q, { tables, heads: 1 }).length !== 128) throw new Error();
 * ```
 * @module
 */
export { applyRope } from "./apply_rope.ts";
export { ropeInvFreq, ropeInvFreqGap } from "./rope_inv_freq.ts";
export { type RopeScaling, scaleInvFreq } from "./rope_scaling.ts";
export { type RopeTables, ropeTables } from "./rope_tables.ts";
