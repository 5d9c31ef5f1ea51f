import assert from "node:assert/strict";
import { createGemmEngine, startWorkerGroup } from "../../src/engine/mod.ts";

const root = new URL("../../", import.meta.url);
const { module } = createGemmEngine(
  Deno.readFileSync(new URL("tables/wasm/gemm_engine.wasm", root)),
);
const url = new URL("./fixtures/echo_worker.ts", import.meta.url);

Deno.test("startWorkerGroup() resolves ok replies and rejects failed ones with the worker's message", async () => {
  const group = startWorkerGroup(url, { count: 2, module });
  try {
    assert.equal(group.count, 2);
    await Promise.all(group.post((id) => ({ id, kind: "ok" })));
    const failed = await Promise.allSettled(group.post((id) => ({ id, kind: "fail" })));
    assert.deepEqual(failed.map((r) => r.status), ["rejected", "rejected"]);
    assert.match(String((failed[0] as PromiseRejectedResult).reason), /refused/);
  } finally {
    group.close();
  }
});

// Deno prints the fixture's uncaught "crashed on purpose" to stderr: that line is expected.
Deno.test("startWorkerGroup() rejects the launch of a worker that stops, and every later one, instead of waiting", async () => {
  const group = startWorkerGroup(url, { count: 1, module });
  try {
    await assert.rejects(Promise.all(group.post((id) => ({ id, kind: "crash" }))), /stopped/);
    await assert.rejects(Promise.all(group.post((id) => ({ id, kind: "ok" }))), /stopped/);
  } finally {
    group.close();
  }
});

Deno.test("startWorkerGroup() rejects what is waiting when closed", async () => {
  const group = startWorkerGroup(url, { count: 1, module });
  const pending = group.post((id) => ({ id, kind: "ok" }));
  group.close();
  await assert.rejects(Promise.all(pending), /closed/);
});
