/**
 * Unit claiming: any split of the rows and columns over threads and any claim order give the same
 * bits.
 */
import assert from "node:assert/strict";
import { prepareWalk } from "../../src/engine/mod.ts";
import { chunkBounds, walkPoolJob, widestChunk } from "../../src/engine/pool_job.ts";
import {
  instantiateKernel,
  kernelParams,
  walkRowBlock,
  type WalkUnit,
} from "../../src/engine/wasm_kernel.ts";
import { loadEngine, pattern, rng, sixteenBitFp32Datapaths } from "./_engine_fixture.ts";

const engine = await loadEngine();
const dps = await sixteenBitFp32Datapaths();

function _operands(seed: number, fmt: "bf16" | "fp16", [m, n, k]: number[]) {
  const next = rng(seed);
  const hi = fmt === "bf16" ? 254 : 30;
  const a = new Uint16Array(m! * k!).map(() => pattern(next, fmt, 1, hi));
  const b = new Uint16Array(n! * k!).map(() => pattern(next, fmt, 1, hi));
  const init = new Uint32Array(m! * n!).map(() => next());
  return { a, b, m: m!, n: n!, k: k!, init };
}

Deno.test("walkPoolJob() splits units between kernels that share a counter, with the engine's bits", () => {
  const kernels = [instantiateKernel(engine.module), instantiateKernel(engine.module)];
  for (const [id, dp] of dps) {
    const ops = _operands(id.length, dp.input.name as "bf16" | "fp16", [5, 37, 2 * dp.k]);
    const want = [...engine.kWalk(dp, ops)];
    // One row block of 5 rows (5 units), then blocks of 2 rows (3 blocks, 15 units).
    for (const [rows, units] of [[5, 5], [2, 15]] as const) {
      const walk = prepareWalk(dp, ops);
      const counter = new Int32Array(1);
      // Kernel 0 claims one unit, then kernel 1 takes the rest: a maximally uneven split.
      let first = true;
      const kernel0 = {
        ...kernels[0]!,
        walkClaimed: (...args: Parameters<typeof kernels[0]["walkClaimed"]>) =>
          kernels[0]!.walkClaimed(args[0], args[1], {
            ...args[2],
            claim: () => first ? (first = false, args[2].claim()) : null,
          }),
      };
      const bounds = Int32Array.of(0, 8, 16, 24, 32, 37);
      const job = { ...walk, id: 0, params: kernelParams(dp), counter, bounds, width: 8, rows };
      assert.equal(walkPoolJob(kernel0, job), 1, id);
      assert.equal(walkPoolJob(kernels[1]!, job), units - 1, id);
      assert.deepEqual([...walk.c], want, `${id}, row blocks of ${rows}`);
    }
  }
});

Deno.test("WasmKernel.walkClaimed() gives the same bits when units are claimed in any order", () => {
  const kernel = instantiateKernel(engine.module);
  const dp = dps.find(([l]) => l === "h100-sxm/mma-fp16-fp32")?.[1];
  assert.ok(dp !== undefined);
  const ops = _operands(3, "fp16", [7, 50, 48]);
  const want = [...engine.kWalk(dp, ops)];
  const walk = prepareWalk(dp, ops);
  const starts = [48, 36, 24, 12, 0];
  const units: WalkUnit[] = starts.map((j0) => ({ i0: 0, i1: 7, j0, j1: Math.min(50, j0 + 12) }));
  kernel.walkClaimed(kernelParams(dp), walk, {
    width: 12,
    rows: 7,
    claim: () => units.shift() ?? null,
  });
  assert.deepEqual([...walk.c], want);
  // Rows and columns interleaved: each unit decodes other rows than the one before.
  const mixed = prepareWalk(dp, ops);
  const cells: WalkUnit[] = [];
  for (const j0 of starts) {
    for (const i0 of [4, 0, 6, 2]) {
      cells.push({ i0, i1: Math.min(7, i0 + 2), j0, j1: Math.min(50, j0 + 12) });
    }
  }
  kernel.walkClaimed(kernelParams(dp), mixed, {
    width: 12,
    rows: 2,
    claim: () => cells.shift() ?? null,
  });
  assert.deepEqual([...mixed.c], want);
});

Deno.test("WasmKernel.walkColumns() gives the engine's bits in row blocks of any height", () => {
  const kernel = instantiateKernel(engine.module);
  for (const [id, dp] of dps) {
    // More columns than one chunk of 256 (a row block walks several chunks), and 48 columns
    // (one chunk of whole panels: C's row blocks are copied whole).
    for (const n of [300, 48]) {
      const ops = _operands(id.length + n, dp.input.name as "bf16" | "fp16", [21, n, dp.k]);
      const want = [...engine.kWalk(dp, ops)];
      for (const rows of [1, 5, 16, 21, 64]) {
        const walk = prepareWalk(dp, ops);
        kernel.walkColumns(kernelParams(dp), walk, { j0: 0, j1: n, rows });
        assert.deepEqual([...walk.c], want, `${id}, ${n} columns, row blocks of ${rows}`);
      }
    }
  }
  const walk = prepareWalk(dps[0]![1], _operands(4, "bf16", [2, 8, dps[0]![1].k]));
  for (const rows of [0, -1, 1.5]) {
    assert.throws(
      () => kernel.walkColumns(kernelParams(dps[0]![1]), walk, { j0: 0, j1: 8, rows }),
      RangeError,
    );
  }
});

Deno.test("walkRowBlock() fits the budget at 8 bytes a row element, in whole tiles of 16 rows", () => {
  assert.equal(walkRowBlock(9728), 1712); // 128 MiB / (9728 x 8) = 1724.6
  assert.equal(walkRowBlock(1024), 16384);
  assert.equal(walkRowBlock(1024, 1024 * 8 * 40), 32);
  assert.equal(walkRowBlock(2 ** 30), 16); // never below one tile
  assert.equal(walkRowBlock(0), Math.floor(2 ** 27 / 8 / 16) * 16);
});

Deno.test("WasmKernel.walkClaimed() throws RangeError for a width that is not 4..256 by 4, or rows < 1", () => {
  const kernel = instantiateKernel(engine.module);
  const dp = dps[0]![1];
  const walk = prepareWalk(dp, _operands(1, "bf16", [1, 4, dp.k]));
  const claim = () => ({ i0: 0, i1: 1, j0: 0, j1: 4 });
  for (const width of [0, 6, 260, 1.5]) {
    assert.throws(
      () => kernel.walkClaimed(kernelParams(dp), walk, { width, rows: 1, claim }),
      RangeError,
    );
  }
  for (const rows of [0, -2, 0.5, NaN]) {
    assert.throws(
      () => kernel.walkClaimed(kernelParams(dp), walk, { width: 4, rows, claim }),
      RangeError,
    );
  }
});

Deno.test("chunkBounds() covers the columns with guided, panel-aligned chunks of 8 to 256", () => {
  for (
    const [n, threads] of [[2560, 2], [9728, 2], [1, 1], [100, 3], [4096, 16], [8, 2], [257, 1]]
  ) {
    const b = chunkBounds(n!, threads!);
    assert.equal(b[0], 0);
    assert.equal(b.at(-1), n);
    for (let i = 1; i < b.length; i++) {
      const w = b[i]! - b[i - 1]!;
      assert.ok(w >= 1 && w <= 256, `${n}/${threads}: chunk ${i} of ${w}`);
      if (i < b.length - 1) assert.equal(w % 8, 0, `${n}/${threads}: chunk ${i} of ${w}`);
      if (i > 1 && i < b.length - 1) assert.ok(w <= b[i - 1]! - b[i - 2]!, "widths never grow");
    }
    assert.ok(widestChunk(b) % 4 === 0 && widestChunk(b) <= 256);
  }
  // 2560 columns on 2 threads: 256-column chunks first, 8-column chunks last.
  const b = chunkBounds(2560, 2);
  assert.equal(b[1], 256);
  assert.equal(b.at(-1)! - b.at(-2)!, 8);
});

Deno.test("WasmKernel.walkClaimed() refuses a unit that is empty, too large or past the matrix", () => {
  const kernel = instantiateKernel(engine.module);
  const dp = dps[0]![1];
  const walk = prepareWalk(dp, _operands(2, "bf16", [6, 40, dp.k]));
  const bad: WalkUnit[] = [
    { i0: 0, i1: 2, j0: 0, j1: 16 }, // wider than 8
    { i0: 0, i1: 2, j0: 0, j1: 0 }, // no columns
    { i0: 0, i1: 2, j0: 36, j1: 44 }, // past n
    { i0: 0, i1: 3, j0: 0, j1: 8 }, // taller than 2
    { i0: 1, i1: 1, j0: 0, j1: 8 }, // no rows
    { i0: 5, i1: 7, j0: 0, j1: 8 }, // past m
    { i0: -1, i1: 1, j0: 0, j1: 8 },
    { i0: 0.5, i1: 2, j0: 0, j1: 8 },
  ];
  for (const unit of bad) {
    let given = false;
    const claim = () => given ? null : (given = true, unit);
    assert.throws(
      () => kernel.walkClaimed(kernelParams(dp), walk, { width: 8, rows: 2, claim }),
      RangeError,
      JSON.stringify(unit),
    );
  }
});
