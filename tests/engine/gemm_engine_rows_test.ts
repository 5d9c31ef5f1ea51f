/**
 * The kernel's row pairing and unrolled block loops against the plain reference: odd row counts,
 * untame rows between tame ones (so pairs form, break and re-form), ragged panels and several
 * blocks per output, for every bf16/fp16 -> fp32 datapath of every GPU profile.
 */
import assert from "node:assert/strict";
import { type Datapath, kWalkReference } from "../../src/hardware/mod.ts";
import { loadEngine, pattern, rng, sixteenBitFp32Datapaths } from "./_engine_fixture.ts";

const engine = await loadEngine();
const datapaths = await sixteenBitFp32Datapaths();

/** Rows of A: tame values, except rows in `untame` (an infinity or a huge value at one k). */
function makeA(next: () => number, fmt: "bf16" | "fp16", m: number, k: number, untame: number[]) {
  // Every third row tiny, so that tiny x tiny blocks fall below the fast path's range.
  const [lo, hi] = fmt === "bf16" ? [118, 130] : [12, 18];
  const [tlo, thi] = fmt === "bf16" ? [60, 75] : [1, 3];
  const a = new Uint16Array(m * k).map((_, idx) =>
    Math.floor(idx / k) % 3 === 2 ? pattern(next, fmt, tlo, thi) : pattern(next, fmt, lo, hi)
  );
  const inf = fmt === "bf16" ? 0x7f80 : 0x7c00;
  for (const [j, i] of untame.entries()) a[i * k + ((j * 7) % k)] = j % 2 === 0 ? inf : 0x7f00;
  return a;
}

function check(dp: Datapath, label: string, seed: number, untame: number[]): void {
  const fmt = dp.input.name as "bf16" | "fp16";
  const [m, n, k] = [9, 10, 6 * dp.k];
  const next = rng(seed);
  const a = makeA(next, fmt, m, k, untame);
  // Columns cycle through tiny (exact fallback lanes), huge and normal tame magnitudes.
  const ranges = fmt === "bf16" ? [[60, 75], [170, 190], [118, 130]] : [[1, 3], [28, 30], [12, 18]];
  const b = new Uint16Array(n * k).map((_, idx) => {
    const [lo, hi] = ranges[Math.floor(idx / k) % 3] as number[];
    return pattern(next, fmt, lo as number, hi as number);
  });
  const init = new Uint32Array(m * n).map(() => next() & 0x87ffffff); // |c| < 2^-111
  const ops = { a, b, m, n, k, init };
  const want = kWalkReference(dp, ops);
  const got = engine.kWalk(dp, ops);
  const i = want.findIndex((v, idx) => v !== got[idx]);
  assert.equal(i, -1, `${label}: first diff at ${i}`);
}

for (const [label, dp] of datapaths) {
  Deno.test(`GemmEngine.kWalk() matches kWalkReference() on paired and single rows of ${label}`, () => {
    check(dp, `${label} all tame`, 3, []);
    check(dp, `${label} rows 1, 4 untame`, 5, [1, 4]);
    check(dp, `${label} rows 0, 7, 8 untame`, 9, [0, 7, 8]);
  });
}
