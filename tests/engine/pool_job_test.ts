/** Chunk claiming: any split of the columns over threads and any claim order give the same bits. */
import assert from "node:assert/strict";
import { prepareWalk } from "../../src/engine/mod.ts";
import { chunkWidth, walkPoolJob } from "../../src/engine/pool_job.ts";
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
          width: args[2].width,
          claim: () => first ? (first = false, args[2].claim()) : Number.MAX_SAFE_INTEGER,
        }),
      walkColumns: kernels[0]!.walkColumns,
    };
    const job = { ...walk, id: 0, params: kernelParams(dp), counter, width: 8 };
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

Deno.test("chunkWidth() gives about sixteen panel-aligned chunks per thread, capped at 256", () => {
  assert.equal(chunkWidth(2560, 2), 80);
  assert.equal(chunkWidth(9728, 2), 256);
  assert.equal(chunkWidth(1, 1), 4);
  assert.equal(chunkWidth(100, 3) % 4, 0);
});
