/**
 * `model forward` hashes the weight files on a worker while the forward computes; when that
 * digest fails the command fails (CHECKPOINT_DIGEST) and leaves no output behind: the digest is
 * awaited before the output is written (docs/security.md: a failed command leaves nothing).
 */
import assert from "node:assert/strict";
import { runCli } from "../../src/cli/main.ts";
import { tempDir } from "../_temp.ts";
import { REPO_ROOT } from "./_run.ts";

/** A digest worker that answers as one whose read failed half-way. */
const FAILING_DIGEST = "data:application/javascript," +
  encodeURIComponent(`self.onmessage = () => self.postMessage({ error: "Input/output error" });`);

Deno.test("model forward whose weight digest fails exits 2 and leaves no output file", async () => {
  const dir = await tempDir({ prefix: "bitaudit-forward-digest-" });
  await Deno.writeTextFile(`${dir}/tokens.json`, JSON.stringify({ sequences: [[1, 2, 3]] }));
  const out = `${dir}/hidden.safetensors`;
  const RealWorker = globalThis.Worker;
  // Every other worker (the GEMM and attention pools) is the real one.
  globalThis.Worker = class extends RealWorker {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(String(url).endsWith("/file_digest_worker.ts") ? FAILING_DIGEST : url, options);
    }
  };
  let code: number;
  try {
    code = await runCli([
      ...["model", "forward", "--checkpoint", `${REPO_ROOT}/tables/models/qwen3-tiny-dense`],
      ...["--tokens", `${dir}/tokens.json`, "--profile", "a100"],
      ...["--stack", "hf-qwen3-flash-attn-torch2.8", "--kernel", "demo-qwen3-tiny-a100"],
      ...["--out", out, "--threads", "1"],
    ]);
  } finally {
    globalThis.Worker = RealWorker;
  }
  assert.equal(code, 2);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
});
