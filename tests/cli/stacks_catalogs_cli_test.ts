/**
 * `bitaudit stacks list|show` and `bitaudit catalogs list|show` (issue 29): what the asset store
 * holds, with digests, and what each profile or catalog covers.
 */
import assert from "node:assert/strict";
import { REPO_ROOT, runBitaudit } from "./_run.ts";
import { assertCliCode } from "../_assert_code.ts";

const manifest = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/tables/manifest.json`));

Deno.test("stacks list --json lists every stack profile with its manifest sha256", async () => {
  const r = await runBitaudit(["stacks", "list", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const rows = JSON.parse(r.stdout) as { id: string; sha256: string; name: string }[];
  assert.ok(rows.some((x) => x.id === "hf-qwen3-flash-attn-torch2.8"));
  for (const row of rows) {
    assert.equal(row.sha256, manifest.assets[`profiles/stack/${row.id}.json`].sha256);
    assert.ok(row.name.length > 0);
  }
});

Deno.test("stacks show prints components, kernels, operators and coverage; an unknown id exits 2", async () => {
  const r = await runBitaudit(["stacks", "show", "hf-qwen3-flash-attn-torch2.8"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /GEMM kernels: looked up in a dispatch catalog/);
  assert.match(r.stdout, /attention fa2-dao-fastmath, batching pad-to-longest/);
  assert.match(r.stdout, /attention modelled for: model_forward yes/);
  // Where the SFU minimum is met: the parts each function was compared on.
  assert.match(
    r.stdout,
    /^SFU minimum met: rcp on sm 8\.0, 8\.9, 9\.0; rsqrt on sm 8\.0, 8\.9, 9\.0; ex2 on sm 8\.0, 8\.9, 9\.0, 10\.0; lg2 nowhere$/m,
  );
  const json = await runBitaudit(["stacks", "show", "hf-qwen3-flash-attn-torch2.8", "--json"]);
  assert.deepEqual(JSON.parse(json.stdout).sfuMinimumMetOn.rsqrt, ["8.0", "8.9", "9.0"]);
  const gemmOnly = await runBitaudit(["stacks", "show", "pytorch-cublas-linear", "--json"]);
  assert.equal(JSON.parse(gemmOnly.stdout).covers.prefill, "no operators: GEMM records only");
  const bad = await runBitaudit(["stacks", "show", "no-such-stack"]);
  assert.equal(bad.code, 2);
  assertCliCode(bad.stderr, "STACK_UNKNOWN");
});

Deno.test("catalogs list --json lists every catalog with its GPU and manifest sha256", async () => {
  const r = await runBitaudit(["catalogs", "list", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const rows = JSON.parse(r.stdout) as { id: string; gpu: string; sha256: string }[];
  const demo = rows.find((x) => x.id === "demo-qwen3-tiny-a100");
  assert.equal(demo?.gpu, "a100");
  for (const row of rows) {
    assert.equal(row.sha256, manifest.assets[`tables/catalogs/${row.id}.json`].sha256);
  }
});

Deno.test("catalogs show prints every entry by NxK with its M range, bias, verification and evidence", async () => {
  const r = await runBitaudit(["catalogs", "show", "h100-sxm-cublas-qwen3-4b-ffn"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^GPU: h100-sxm; library: /m);
  assert.match(r.stdout, /7 verified, 1 not reproduced, 0 unchecked/);
  assert.match(r.stdout, /^NxK +M +bias +recipe +kernel +verified +evidence$/m);
  assert.match(r.stdout, /^\d+x\d+ +\d+\.\.\d+ +(yes|no) +\S.* NO \(not covered\) +\[\d+\]$/m);
  assert.match(r.stdout, /^evidence:\n {2}\[1\] /m);
  const json = JSON.parse(
    (await runBitaudit(["catalogs", "show", "demo-qwen3-tiny-a100", "--json"])).stdout,
  );
  assert.equal(json.entries.length > 0 && json.sha256.length === 64, true);
  const bad = await runBitaudit(["catalogs", "show", "no-such-catalog"]);
  assert.equal(bad.code, 2);
  assertCliCode(bad.stderr, "CATALOG_UNKNOWN");
});
