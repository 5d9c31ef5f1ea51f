import assert from "node:assert/strict";
import { createGemmEngine, startWorkerGroup } from "../../src/engine/mod.ts";
import { HostResourceError, isHostResourceError } from "../../src/errors.ts";

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

// The runtime prints a worker's uncaught error to stderr; the crash runs in a child process so
// that expected report is captured (and checked) instead of reaching the test output.
Deno.test("startWorkerGroup() rejects the launch of a worker that stops, and every later one, instead of waiting", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-read",
      new URL("./fixtures/crash_group.ts", import.meta.url).pathname,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  assert.equal(out.code, 0, dec.decode(out.stderr));
  assert.match(dec.decode(out.stderr), /crashed on purpose/);
  const r = JSON.parse(dec.decode(out.stdout));
  assert.match(r.crash[0], /stopped/);
  assert.match(r.later[0], /stopped/);
});

Deno.test("startWorkerGroup() rejects what is waiting when closed", async () => {
  const group = startWorkerGroup(url, { count: 1, module });
  const pending = group.post((id) => ({ id, kind: "ok" }));
  group.close();
  await assert.rejects(Promise.all(pending), /closed/);
});

Deno.test("a worker's failed allocation reaches the caller as a HostResourceError, a bug as an Error", async () => {
  const group = startWorkerGroup(new URL("./fixtures/alloc_worker.ts", import.meta.url), {
    count: 1,
    module,
  });
  try {
    const [alloc] = await Promise.allSettled(group.post((id) => ({ id, kind: "alloc" })));
    const reason = (alloc as PromiseRejectedResult).reason;
    assert.ok(reason instanceof HostResourceError, String(reason));
    assert.ok(isHostResourceError(reason));
    const [bug] = await Promise.allSettled(group.post((id) => ({ id, kind: "bug" })));
    const why = (bug as PromiseRejectedResult).reason;
    assert.ok(!isHostResourceError(why), String(why));
    assert.match(String(why), /a bug on purpose/);
  } finally {
    group.close();
  }
});
