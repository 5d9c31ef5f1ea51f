/**
 * The WebAssembly engine against the plain reference (`kWalkReference`, built on `dotKWalk`),
 * bit for bit, for every bf16/fp16 -> fp32 datapath of every GPU profile.
 */
import assert from "node:assert/strict";
import { engineSupports } from "../../src/engine/mod.ts";
import { type Datapath, type KWalkGemmOperands, kWalkReference } from "../../src/hardware/mod.ts";
import {
  assertSameAsReference,
  loadEngine,
  pattern,
  rng,
  sixteenBitFp32Datapaths,
} from "./_engine_fixture.ts";

const engine = await loadEngine();
const datapaths = await sixteenBitFp32Datapaths();
const SHAPES: [number, number, number][] = [[1, 1, 1], [3, 5, 17], [2, 9, 40], [5, 4, 33]];

type Gen = (next: () => number, fmt: "bf16" | "fp16") => number;
const MAXE = { bf16: 254, fp16: 30 };
const normal: Gen = (r, f) => pattern(r, f, f === "bf16" ? 120 : 12, f === "bf16" ? 130 : 18);
const wide: Gen = (r, f) => pattern(r, f, 1, MAXE[f]);
/** Huge and tiny magnitudes, subnormals, signed zeros, 1.5-ish significands, specials. */
const adversarial: Gen = (r, f) => {
  const fb = f === "bf16" ? 7 : 10;
  const sign = (r() & 1) << 15;
  switch (r() % 10) {
    case 0:
      return sign; // signed zero
    case 1:
      return sign | (r() & ((1 << fb) - 1)); // subnormal (or zero)
    case 2:
      return pattern(r, f, MAXE[f] - 8, MAXE[f]); // huge
    case 3:
      return pattern(r, f, 1, 6); // tiny
    case 4:
      return sign | ((MAXE[f] + 1) << fb) | (r() % 7 === 0 ? 1 : 0); // Inf, sometimes NaN
    case 5:
      return sign | ((MAXE[f] >> 1) << fb) | (0b11 << (fb - 2)); // 1.75: products >= 2
    default:
      return normal(r, f);
  }
};
const tinyOnly: Gen = (r, f) => pattern(r, f, 1, f === "bf16" ? 60 : 3); // fp32 subnormal results
const hugeOnly: Gen = (r, f) => pattern(r, f, MAXE[f] - 40, MAXE[f]); // overflow to Inf

function makeOps(dp: Datapath, gen: Gen, seed: number, shape: [number, number, number]) {
  const [m, n, k] = shape;
  const next = rng(seed);
  const fmt = dp.input.name as "bf16" | "fp16";
  const a = new Uint16Array(m * k).map(() => gen(next, fmt));
  const b = new Uint16Array(n * k).map(() => gen(next, fmt));
  return { a, b, m, n, k };
}

function assertSame(dp: Datapath, ops: KWalkGemmOperands, label: string): void {
  assertSameAsReference(engine, dp, ops, label);
}

for (const [label, dp] of datapaths) {
  Deno.test(`GemmEngine.kWalk() matches kWalkReference() on ${label}`, () => {
    assert.ok(engineSupports(dp), `${label} should be supported`);
    const gens: [string, Gen][] = [
      ["normal", normal],
      ["wide", wide],
      ["adversarial", adversarial],
      ["tiny", tinyOnly],
      ["huge", hugeOnly],
    ];
    let seed = 1;
    for (const [name, gen] of gens) {
      for (const shape of SHAPES) {
        const ops = makeOps(dp, gen, seed++, shape);
        assertSame(dp, ops, `${name} ${shape}`);
        const next = rng(seed++);
        const init = new Uint32Array(shape[0] * shape[1]).map(() => next());
        const segs: [number, number][] = [[Math.floor(shape[2] / 2), shape[2]], [0, 1]];
        assertSame(dp, { ...ops, init, segments: segs }, `${name} ${shape} init+segments`);
      }
    }
  });
}

Deno.test("GemmEngine.kWalk() gives +0 for exact cancellation and -0 for a negative sum truncated to zero", () => {
  const dp = datapaths.find(([l]) => l.startsWith("a100/mma-bf16"))?.[1] as Datapath;
  // 1*1 + 1*(-1): exact cancellation -> +0, even from init -0.
  const a = new Uint16Array([0x3f80, 0x3f80]);
  const b = new Uint16Array([0x3f80, 0xbf80]);
  const c = engine.kWalk(dp, { a, b, m: 1, n: 1, k: 2, init: new Uint32Array([0x80000000]) });
  assert.equal(c[0], 0);
  // A negative tiny product below 2^-149 truncates to -0 on the fp32 grid (floor -132 keeps it).
  const t = engine.kWalk(dp, {
    a: new Uint16Array([0x0001]),
    b: new Uint16Array([0xbf80]),
    m: 1,
    n: 1,
    k: 1,
  });
  assert.equal(
    t[0],
    kWalkReference(dp, {
      a: new Uint16Array([0x0001]),
      b: new Uint16Array([0xbf80]),
      m: 1,
      n: 1,
      k: 1,
    })[0],
  );
});

Deno.test("GemmEngine.kWalk() keeps init when K is empty and throws RangeError for unsupported datapaths", () => {
  const dp = datapaths[0]?.[1] as Datapath;
  const init = new Uint32Array([0x3f800000, 0xff800000]);
  const c = engine.kWalk(dp, {
    a: new Uint16Array(0),
    b: new Uint16Array(0),
    m: 1,
    n: 2,
    k: 0,
    init,
  });
  assert.deepEqual([...c], [...init]);
  assert.throws(
    () =>
      engine.kWalk({ ...dp, rounding: "rne" }, {
        a: new Uint16Array(0),
        b: new Uint16Array(0),
        m: 0,
        n: 0,
        k: 0,
      }),
    RangeError,
  );
  const rne = { ...dp, rounding: "rne" } as const;
  const ops = makeOps(dp, normal, 7, [2, 3, 20]);
  assert.deepEqual([...engine.kWalkAuto(rne, ops)], [...kWalkReference(rne, ops)]);
});

Deno.test("GemmEngine.kWalk() keeps B's packed panels in a bMemo and reuses them for the same B only", () => {
  const dp = datapaths.find(([id]) => id === "a100/mma-bf16-fp32")?.[1];
  assert.ok(dp !== undefined);
  const [m, n, k] = [3, 20, 64];
  const a = new Uint16Array(m * k).map((_, i) => 0x3f80 + ((i * 37) % 120));
  const b = new Uint16Array(n * k).map((_, i) => 0xbf00 + ((i * 53) % 200));
  const memo = {};
  const ops = { a, b, m, n, k, bMemo: memo };
  const want = [...kWalkReference(dp, { a, b, m, n, k })];
  assert.deepEqual([...engine.kWalk(dp, ops)], want);
  assert.ok("prepared" in memo, "the packed panels are kept");
  assert.deepEqual([...engine.kWalk(dp, ops)], want); // from the memo
  // The memo's owner vouches that B is unchanged: a changed B behind the memo is not repacked
  // (which shows the panels come from the memo) ...
  const saved = b.slice();
  b.fill(0x3f80);
  assert.deepEqual([...engine.kWalk(dp, ops)], want);
  // ... but another array (a copy in another buffer) is packed anew.
  const other = saved.slice();
  other.fill(0x3f80);
  assert.deepEqual(
    [...engine.kWalk(dp, { ...ops, b: other })],
    [...kWalkReference(dp, { a, b: other, m, n, k })],
  );
});

Deno.test("GemmEngine.kWalk() and kWalkReference() write C into a given out, init itself or another array, same bits", () => {
  for (const [name, dp] of datapaths.filter(([id]) => id.startsWith("a100/"))) {
    const ops = makeOps(dp, adversarial, 11, [5, 12, 40]);
    const init = new Uint32Array(5 * 12).map((_, i) => 0x3f800000 + i * 0x10101);
    const want = [...kWalkReference(dp, { ...ops, init })];
    const wantZero = [...kWalkReference(dp, ops)];
    for (const walk of [engine.kWalk, kWalkReference]) {
      // Into init itself: updated in place.
      const acc = init.slice();
      assert.equal(walk(dp, { ...ops, init: acc, out: acc }), acc, name);
      assert.deepEqual([...acc], want, `${name} out = init`);
      // Into another array that holds stale values: overwritten, from +0 without init.
      const out = new Uint32Array(5 * 12).fill(0x7fc00000);
      assert.equal(walk(dp, { ...ops, out }), out, name);
      assert.deepEqual([...out], wantZero, `${name} out, no init`);
      assert.equal(walk(dp, { ...ops, init, out }), out, name);
      assert.deepEqual([...out], want, `${name} out, init`);
      assert.deepEqual([...init], [...init.map((_, i) => 0x3f800000 + i * 0x10101)], "init kept");
      assert.throws(() => walk(dp, { ...ops, out: new Uint32Array(5) }), RangeError);
      // An out on A's, B's or (shifted) init's bytes would change the bits as it is written.
      const room = new ArrayBuffer((5 * 40 + 12 * 40 + 2 * 5 * 12) * 4);
      const a = new Uint16Array(room, 0, 5 * 40), b = new Uint16Array(room, 5 * 40 * 2, 12 * 40);
      a.set(ops.a);
      b.set(ops.b);
      const inits = new Uint32Array(room, 5 * 40 * 2 + 12 * 40 * 2, 2 * 5 * 12);
      inits.set(init);
      const over = [
        new Uint32Array(room, 0, 5 * 12),
        new Uint32Array(room, 5 * 40 * 2, 5 * 12),
        inits.subarray(1, 1 + 5 * 12),
      ];
      for (const bad of over) {
        assert.throws(
          () => walk(dp, { ...ops, a, b, init: inits.subarray(0, 5 * 12), out: bad }),
          /out shares bytes with A, B or init/,
        );
      }
      assert.deepEqual([...a], [...ops.a], "A untouched");
    }
  }
});
