/**
 * `runCli()` in process: each call's exit code is its own, and the host's exit code is left as it
 * was (a NOT_VERIFIED run's 3 became a later `profiles list`'s code and the host's own).
 */
import assert from "node:assert/strict";
import { runCli } from "../../src/cli/main.ts";
import { REPO_ROOT } from "./_run.ts";
import { tempDir } from "../_temp.ts";

Deno.test("runCli() returns each call's own exit code and leaves the process's as it was", async () => {
  const dir = await tempDir({ prefix: "bitaudit-runcli-" });
  await Deno.writeTextFile(`${dir}/tokens.json`, JSON.stringify({ sequences: [[1, 2, 3]] }));
  const before = Deno.exitCode;
  const notVerified = await runCli([
    ...["model", "forward", "--checkpoint", `${REPO_ROOT}/tables/models/qwen3-tiny-tp`],
    ...["--tokens", `${dir}/tokens.json`, "--profile", "a100", "--stack"],
    ...["hf-qwen3-flash-attn-torch2.8", "--kernel", "demo-qwen3-tiny-tp-a100"],
    ...["--tp", "2", "--ep", "2", "--out", `${dir}/h.safetensors`, "--threads", "1"],
  ]);
  assert.equal(notVerified, 3);
  assert.equal(Deno.exitCode, before);
  assert.equal(
    await runCli(["plan", "--population", "1000", "--p-false", "0.01", "--k", "100"]),
    0,
  );
  assert.equal(Deno.exitCode, before);
  // Calls made together run one after the other, each with its own code, and the host's code
  // is what it was before them.
  Deno.exitCode = 5;
  const together = await Promise.all([
    runCli(["profiles", "list"]),
    runCli([
      ...["model", "forward", "--checkpoint", `${REPO_ROOT}/tables/models/qwen3-tiny-tp`],
      ...["--tokens", `${dir}/tokens.json`, "--profile", "a100", "--stack"],
      ...["hf-qwen3-flash-attn-torch2.8", "--kernel", "demo-qwen3-tiny-tp-a100"],
      ...["--tp", "2", "--ep", "2", "--out", `${dir}/h2.safetensors`, "--threads", "1"],
    ]),
    runCli(["profiles", "list"]),
  ]);
  const after = Deno.exitCode;
  Deno.exitCode = before;
  assert.deepEqual(together, [0, 3, 0]);
  assert.equal(after, 5);
});
