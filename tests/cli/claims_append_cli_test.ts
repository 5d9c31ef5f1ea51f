/**
 * `bitaudit claims append` (issue 29): records built from `bitaudit model forward --json` of the
 * bundled checkpoints audit PASS, a flipped fingerprint FAILs, and refused facts leave the log
 * and the blob folder as they were.
 */
import assert from "node:assert/strict";
import { REPO_ROOT, runBitaudit } from "./_run.ts";
import { removeWhenDone } from "./_audit_fixture.ts";
import { generateKeys } from "../../src/cli/commands/key.ts";
import { assertCliCode } from "../_assert_code.ts";
import type { CliErrorCode } from "../../src/cli/exit_codes.ts";

const STACK = "hf-qwen3-flash-attn-torch2.8";
const CATALOG = "demo-qwen3-tiny-a100";
const MODELS = `${REPO_ROOT}/tables/models`;

async function tempDir(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-append-" });
  removeWhenDone(dir);
  await Deno.writeTextFile(
    `${dir}/tokens.json`,
    JSON.stringify({ sequences: [[1, 2, 3, 4, 5], [7, 8, 9]], padTokenId: 0 }),
  );
  return dir;
}

/** `model forward --json` of a bundled checkpoint, saved beside; returns its path and output. */
async function forward(dir: string, model: string): Promise<{ path: string; fingerprint: string }> {
  const r = await runBitaudit([
    ...["model", "forward", "--checkpoint", `${MODELS}/${model}`, "--tokens", `${dir}/tokens.json`],
    ...["--profile", "a100", "--stack", STACK, "--kernel", CATALOG, "--threads", "1"],
    ...["--out", `${dir}/${model}.safetensors`, "--json"],
  ]);
  assert.equal(r.code, 0, r.stderr);
  const path = `${dir}/${model}.forward.json`;
  await Deno.writeTextFile(path, r.stdout);
  return { path, fingerprint: JSON.parse(r.stdout).fingerprint };
}

function append(dir: string, o: { model: string; fingerprint: string; extra?: string[] }) {
  return runBitaudit([
    ...["claims", "append", "model_forward", "--log", `${dir}/log/claims.jsonl`],
    ...["--checkpoint", `${MODELS}/${o.model}`, "--tokens", `${dir}/tokens.json`],
    ...["--stack", STACK, "--profile", "a100", "--kernel", CATALOG],
    ...["--fingerprint", o.fingerprint, "--json", ...(o.extra ?? [])],
  ]);
}

async function audit(dir: string, o: { k: number; out: string }) {
  const key = `${dir}/inspector.key`;
  try {
    await Deno.stat(key);
  } catch {
    await generateKeys(`${dir}/inspector`);
  }
  return runBitaudit([
    ...["audit", "--log", `${dir}/log/claims.jsonl`, "--randomness", "ab".repeat(32)],
    ...["--round", "7", "--k", String(o.k), "--key", key, "--out", `${dir}/${o.out}`],
    ...["--threads", "1", "--json"],
  ]);
}

Deno.test("claims append: records of the bundled Qwen3 and Llama checkpoints audit PASS, a flipped fingerprint FAILs", async () => {
  const dir = await tempDir();
  const models = ["qwen3-tiny-dense", "llama3-tiny"];
  let qwen = "";
  for (const [i, model] of models.entries()) {
    const f = await forward(dir, model);
    if (i === 0) qwen = f.fingerprint;
    const r = await append(dir, {
      model,
      fingerprint: f.fingerprint,
      extra: [
        ...(i === 0 ? ["--log-id", "issue-29-test"] : []),
        ...["--layer-chain", f.path, "--component", "transformers=4.56.1"],
      ],
    });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.seq, i);
    assert.equal(out.records, i + 1);
    assert.equal(out.blobs.written.length, 2, "config.json and model.safetensors, by digest");
  }
  const valid = await runBitaudit(["claims", "validate", "--log", `${dir}/log/claims.jsonl`]);
  assert.equal(valid.code, 0, `the records match schemas/claim-record.json: ${valid.stdout}`);
  const pass = await audit(dir, { k: 2, out: "audit-pass" });
  assert.equal(pass.code, 0, pass.stderr);
  const passed = JSON.parse(pass.stdout);
  assert.equal(passed.verdict, "PASSED");
  assert.deepEqual(passed.results.map((r: { status: string }) => r.status), ["PASS", "PASS"]);

  const flipped = qwen.slice(0, 63) + (qwen[63] === "0" ? "1" : "0");
  const bad = await append(dir, { model: models[0]!, fingerprint: flipped });
  assert.equal(bad.code, 0, bad.stderr);
  const again = JSON.parse(bad.stdout);
  assert.equal(again.blobs.written.length, 0, "the same files are stored once");
  assert.equal(again.blobs.present.length, 2);
  const fail = await audit(dir, { k: 3, out: "audit-fail" });
  assert.equal(fail.code, 1, fail.stderr);
  const failed = JSON.parse(fail.stdout);
  assert.equal(failed.verdict, "FAILED");
  const byIndex = new Map(
    failed.results.map((r: { index: number; status: string }) => [r.index, r.status]),
  );
  assert.deepEqual([byIndex.get(0), byIndex.get(1), byIndex.get(2)], ["PASS", "PASS", "FAIL"]);
});

Deno.test("claims append refuses contradicting facts with exit 2 and a coded line, changing nothing", async () => {
  const dir = await tempDir();
  const model = "qwen3-tiny-dense";
  const fp = "d".repeat(64);
  const first = await append(dir, { model, fingerprint: fp, extra: ["--log-id", "t"] });
  assert.equal(first.code, 0, first.stderr);
  const log = `${dir}/log/claims.jsonl`;
  const before = await Deno.readTextFile(log);
  const blobs = () => [...Deno.readDirSync(`${dir}/log/blobs`)].map((e) => e.name).sort();
  const blobsBefore = blobs();
  const cases: [string[], CliErrorCode][] = [
    [["--fingerprint", "xyz"], "CLAIM_INVALID"],
    [["--stack", "no-such-stack"], "STACK_UNKNOWN"],
    [["--profile", "h999", "--sms", "100"], "PROFILE_UNKNOWN"],
    [["--kernel", "demo-qwen3-tiny-h100-sxm"], "CLAIM_INVALID"],
    [["--log-id", "other"], "LOG_CHAIN"],
    [["--positions", "0:9"], "CLAIM_INVALID"],
  ];
  for (const [extra, code] of cases) {
    const r = await append(dir, { model, fingerprint: fp, extra });
    assert.equal(r.code, 2, `${extra.join(" ")}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split("\n").length, 1);
    assertCliCode(r.stderr, code);
  }
  await Deno.writeTextFile(`${dir}/vocab.json`, JSON.stringify({ sequences: [[1, 999999]] }));
  const vocab = await append(dir, {
    model,
    fingerprint: fp,
    extra: ["--tokens", `${dir}/vocab.json`],
  });
  assertCliCode(vocab.stderr, "TOKENS_INVALID");
  assert.equal(await Deno.readTextFile(log), before, "the log is unchanged");
  assert.deepEqual(blobs(), blobsBefore, "no blob left behind");

  const fresh = await append(dir, {
    model,
    fingerprint: fp,
    extra: ["--log", `${dir}/new/c.jsonl`],
  });
  assertCliCode(fresh.stderr, "USAGE");
  await assert.rejects(() => Deno.stat(`${dir}/new`), Deno.errors.NotFound);
});

Deno.test("claims append never overwrites a blob holding other bytes, and waits for no lock", async () => {
  const dir = await tempDir();
  const model = "qwen3-tiny-dense";
  const fp = "e".repeat(64);
  const first = await append(dir, { model, fingerprint: fp, extra: ["--log-id", "t"] });
  assert.equal(first.code, 0, first.stderr);
  const [config] = JSON.parse(first.stdout).blobs.written as string[];
  const blob = `${dir}/log/blobs/${config}`;
  await Deno.chmod(blob, 0o644);
  await Deno.writeTextFile(blob, "{}");
  const r = await append(dir, { model, fingerprint: fp });
  assert.equal(r.code, 2);
  assertCliCode(r.stderr, "BLOB_DIGEST_MISMATCH");
  assert.equal(await Deno.readTextFile(blob), "{}", "left as it is");
  assert.equal((await Deno.readTextFile(`${dir}/log/claims.jsonl`)).split("\n").length, 2);

  await Deno.writeTextFile(`${dir}/log/claims.jsonl.lock`, "1\n");
  const locked = await append(dir, { model, fingerprint: fp });
  assertCliCode(locked.stderr, "OUTPUT_EXISTS");
});
