// Unrolled chunks of the SIMD K-walk (walk.ts): `step` consecutive k of one block with constant
// load offsets, so that the block loops of walk.ts run once per 8 (or 4) k instead of once per k.
// `step` is 8, 4 or 1 and always a compile-time constant after inlining, so the branches fold.
//
// Both reductions are trees rather than chains, which shortens the dependency path from one
// block's accumulator to the next. This changes no bit: i32 max is associative and commutative,
// and the i32 sum is exact in any order, because every lane sum of the block's terms stays
// below 2^31 (walk.ts step 4: L * (2^(F+2) - 1) < 2^31 bounds every partial sum as well).

/**
 * Step 1 on one chunk: max(e, max over k in [0, step) of ea_k + eb_k). aExp points at the row's
 * i32 exponents (4 bytes per k), bExp at the panel's exponents (16 bytes per k).
 */
@inline export function expChunk(aExp: usize, bExp: usize, e: v128, step: i32): v128 {
  if (step == 1) return i32x4.max_s(e, i32x4.add(v128.load32_splat(aExp), v128.load(bExp)));
  const x0 = i32x4.add(v128.load32_splat(aExp), v128.load(bExp));
  const x1 = i32x4.add(v128.load32_splat(aExp, 4), v128.load(bExp, 16));
  const x2 = i32x4.add(v128.load32_splat(aExp, 8), v128.load(bExp, 32));
  const x3 = i32x4.add(v128.load32_splat(aExp, 12), v128.load(bExp, 48));
  const q0 = i32x4.max_s(i32x4.max_s(x0, x1), i32x4.max_s(x2, x3));
  if (step == 4) return i32x4.max_s(e, q0);
  const x4 = i32x4.add(v128.load32_splat(aExp, 16), v128.load(bExp, 64));
  const x5 = i32x4.add(v128.load32_splat(aExp, 20), v128.load(bExp, 80));
  const x6 = i32x4.add(v128.load32_splat(aExp, 24), v128.load(bExp, 96));
  const x7 = i32x4.add(v128.load32_splat(aExp, 28), v128.load(bExp, 112));
  const q1 = i32x4.max_s(i32x4.max_s(x4, x5), i32x4.max_s(x6, x7));
  return i32x4.max_s(e, i32x4.max_s(q0, q1));
}

/**
 * Step 3 on one chunk: s plus the terms of k in [0, step), with the same pointers as `expChunk`
 * but on the f32 values. Exact i32 sums (see the module comment).
 */
@inline export function sumChunk(aVal: usize, bVal: usize, scale: v128, s: v128, step: i32): v128 {
  if (step == 1) return i32x4.add(s, term(v128.load32_splat(aVal), v128.load(bVal), scale));
  const t0 = term(v128.load32_splat(aVal), v128.load(bVal), scale);
  const t1 = term(v128.load32_splat(aVal, 4), v128.load(bVal, 16), scale);
  const t2 = term(v128.load32_splat(aVal, 8), v128.load(bVal, 32), scale);
  const t3 = term(v128.load32_splat(aVal, 12), v128.load(bVal, 48), scale);
  const q0 = i32x4.add(i32x4.add(t0, t1), i32x4.add(t2, t3));
  if (step == 4) return i32x4.add(s, q0);
  const t4 = term(v128.load32_splat(aVal, 16), v128.load(bVal, 64), scale);
  const t5 = term(v128.load32_splat(aVal, 20), v128.load(bVal, 80), scale);
  const t6 = term(v128.load32_splat(aVal, 24), v128.load(bVal, 96), scale);
  const t7 = term(v128.load32_splat(aVal, 28), v128.load(bVal, 112), scale);
  const q1 = i32x4.add(i32x4.add(t4, t5), i32x4.add(t6, t7));
  return i32x4.add(s, i32x4.add(q0, q1));
}

/**
 * One aligned term of step 3: trunc_sat((a_k * b_k) * scale) from the splatted a_k and the
 * panel's b_k. a_k * b_k is exact and the truncation is the reference's sign-magnitude truncation
 * onto the block grid (walk.ts steps 3 and 4). The loads stay at the call sites because their
 * offsets must be immediates.
 */
@inline function term(a: v128, b: v128, scale: v128): v128 {
  return i32x4.trunc_sat_f32x4_s(f32x4.mul(f32x4.mul(a, b), scale));
}
