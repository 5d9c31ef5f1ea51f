/** Chunk claiming: any split of the columns over threads and any claim order give the same bits. */
import assert from "node:assert/strict";
import { prepareWalk } from "../../src/engine/mod.ts";
import { chunkBounds, walkPoolJob, widestChunk } from "../../src/engine/pool_job.ts";
import { instantiateKernel, kernelParams } from "../../src/engine/wasm_kernel.ts";
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

Deno.test("walkPoolJob() splits chunks between kernels that share a counter, with the engine's bits", () => {
  const kernels = [instantiateKernel(engine.module), instantiateKernel(engine.module)];
  for (const [id, dp] of dps) {
    const ops = _operands(id.length, dp.input.name as "bf16" | "fp16", [5, 37, 2 * dp.k]);
    const walk = prepareWalk(dp, ops);
    const counter = new Int32Array(1);
    // Kernel 0 claims one chunk, then kernel 1 takes the rest: a maximally uneven split.
    let first = true;
    const kernel0 = {
      walkClaimed: (...args: Parameters<typeof kernels[0]["walkClaimed"]>) =>
        kernels[0]!.walkClaimed(args[0], args[1], {
          ...args[2],
          claim: () => first ? (first = false, args[2].claim()) : Number.MAX_SAFE_INTEGER,
        }),
      walkColumns: kernels[0]!.walkColumns,
      fa2SoftmaxTile: kernels[0]!.fa2SoftmaxTile,
      fa2Instructions: kernels[0]!.fa2Instructions,
    };
    const bounds = Int32Array.of(0, 8, 16, 24, 32, 37);
    const job = { ...walk, id: 0, params: kernelParams(dp), counter, bounds, width: 8 };
    assert.equal(walkPoolJob(kernel0, job), 1, id);
    assert.equal(walkPoolJob(kernels[1]!, job), 4, id);
    assert.deepEqual([...walk.c], [...engine.kWalk(dp, ops)], id);
  }
});

Deno.test("WasmKernel.walkClaimed() gives the same bits when chunks are claimed in reverse", () => {
  const kernel = instantiateKernel(engine.module);
  const dp = dps.find(([l]) => l === "h100-sxm/mma-fp16-fp32")?.[1];
  assert.ok(dp !== undefined);
  const ops = _operands(3, "fp16", [7, 50, 48]);
  const walk = prepareWalk(dp, ops);
  const starts = [48, 36, 24, 12, 0, 50];
  kernel.walkClaimed(kernelParams(dp), walk, { width: 12, claim: () => starts.shift() ?? 50 });
  assert.deepEqual([...walk.c], [...engine.kWalk(dp, ops)]);
});

Deno.test("WasmKernel.walkClaimed() throws RangeError for a width that is not 4..256 by 4", () => {
  const kernel = instantiateKernel(engine.module);
  const dp = dps[0]![1];
  const walk = prepareWalk(dp, _operands(1, "bf16", [1, 4, dp.k]));
  for (const width of [0, 6, 260, 1.5]) {
    assert.throws(
      () => kernel.walkClaimed(kernelParams(dp), walk, { width, claim: () => 0 }),
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

Deno.test("WasmKernel.walkClaimed() refuses a chunk wider than its width or past n", () => {
  const kernel = instantiateKernel(engine.module);
  const dp = dps[0]![1];
  const walk = prepareWalk(dp, _operands(2, "bf16", [2, 40, dp.k]));
  let calls = 0;
  const claim = () => (calls++ === 0 ? 0 : 40);
  assert.throws(
    () => kernel.walkClaimed(kernelParams(dp), walk, { width: 8, claim, end: () => 16 }),
    RangeError,
  );
  calls = 0;
  assert.throws(
    () => kernel.walkClaimed(kernelParams(dp), walk, { width: 8, claim, end: () => 0 }),
    RangeError,
  );
});
