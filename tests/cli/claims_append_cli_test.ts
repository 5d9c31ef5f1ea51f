/**
 * `bitaudit claims append` (issue 29): records built from `bitaudit model forward --json` of the
 * bundled checkpoints audit PASS, a flipped fingerprint FAILs, and refused facts leave the log
 * and the blob folder as they were.
 */
import assert from "node:assert/strict";
import { REPO_ROOT, runBitaudit, withOverrides } from "./_run.ts";
import { appendTempDir, assertAudit, assertRefusals, flippedHex } from "./_append_fixture.ts";
import { assertCliCode } from "../_assert_code.ts";

const STACK = "hf-qwen3-flash-attn-torch2.8";
const CATALOG = "demo-qwen3-tiny-a100";
const MODELS = `${REPO_ROOT}/tables/models`;

async function tempDir(): Promise<string> {
  const dir = await appendTempDir();
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
  return runBitaudit(withOverrides([
    ...["claims", "append", "model_forward", "--log", `${dir}/log/claims.jsonl`],
    ...["--checkpoint", `${MODELS}/${o.model}`, "--tokens", `${dir}/tokens.json`],
    ...["--stack", STACK, "--profile", "a100", "--kernel", CATALOG],
    ...["--fingerprint", o.fingerprint, "--json"],
  ], o.extra ?? []));
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
  await assertAudit(dir, { out: "audit-pass", statuses: ["PASS", "PASS"] });

  const bad = await append(dir, { model: models[0]!, fingerprint: flippedHex(qwen) });
  assert.equal(bad.code, 0, bad.stderr);
  const again = JSON.parse(bad.stdout);
  assert.equal(again.blobs.written.length, 0, "the same files are stored once");
  assert.equal(again.blobs.present.length, 2);
  await assertAudit(dir, { out: "audit-fail", statuses: ["PASS", "PASS", "FAIL"] });
});

Deno.test("claims append refuses contradicting facts with exit 2 and a coded line, changing nothing", async () => {
  const dir = await tempDir();
  const model = "qwen3-tiny-dense";
  const fp = "d".repeat(64);
  const first = await append(dir, { model, fingerprint: fp, extra: ["--log-id", "t"] });
  assert.equal(first.code, 0, first.stderr);
  await Deno.writeTextFile(`${dir}/vocab.json`, JSON.stringify({ sequences: [[1, 999999]] }));
  // Over 8 MiB: refused before it is parsed (65,536 tokens never need as much).
  const big = JSON.stringify({ sequences: Array.from({ length: 2_200_000 }, () => [1]) });
  await Deno.writeTextFile(`${dir}/big.json`, big);
  await assertRefusals(dir, {
    cases: [
      [["--fingerprint", "xyz"], "CLAIM_INVALID"],
      [["--stack", "no-such-stack"], "STACK_UNKNOWN"],
      [["--profile", "h999", "--sms", "100"], "PROFILE_UNKNOWN"],
      [["--sms", "200"], "CLAIM_INVALID"], // more SMs than an A100 has
      [["--component", "pytorch=2.4.0"], "CLAIM_INVALID"], // the stack pins 2.8.0
      // A component given twice: refused, not the last kept; two names of one pinned library
      // stating two releases contradict each other.
      [["--component", "pytorch=2.4.0", "--component", "pytorch=2.8.0"], "USAGE"],
      [["--component", "torch=2.8.0", "--component", "PyTorch=2.4.0"], "CLAIM_INVALID"],
      [["--kernel", "demo-qwen3-tiny-h100-sxm"], "CLAIM_INVALID"],
      [["--log-id", "other"], "LOG_CHAIN"],
      [["--positions", "0:9"], "CLAIM_INVALID"],
      [["--tokens", `${dir}/vocab.json`], "TOKENS_INVALID"],
      [["--tokens", `${dir}/big.json`], "INPUT_TOO_LARGE"],
      [["--layer-chain", `${dir}/big.json`], "INPUT_TOO_LARGE"],
      [["--sampler", "top-k 5"], "USAGE"], // a sequence record's flag
      [["--component", `${"n".repeat(65)}=1.0`], "USAGE"], // names are at most 64 characters
      [["--component", "cuda=12.8\u001b[2J"], "CLAIM_INVALID"], // plain text only
      [["--component", "cudnn=91002"], "CLAIM_INVALID"], // stated as 9.10.2
    ],
    run: (extra) => append(dir, { model, fingerprint: fp, extra }),
  });

  const long = await append(dir, {
    model,
    fingerprint: fp,
    extra: ["--component", `${"n".repeat(65)}=1.0`],
  });
  assert.match(long.stderr, /a name is 1 to 64 ASCII letters, digits and _.-/);
  const encoded = await append(dir, {
    model,
    fingerprint: fp,
    extra: ["--component", "cudnn=91002"],
  });
  assert.match(encoded.stderr, /dotted release \(cuDNN's 91002 is 9\.10\.2\)/);

  const fresh = await append(dir, {
    model,
    fingerprint: fp,
    extra: ["--log", `${dir}/new/c.jsonl`],
  });
  assertCliCode(fresh.stderr, "USAGE");
  await assert.rejects(() => Deno.stat(`${dir}/new`), Deno.errors.NotFound);

  // A link to the log: renaming over it would replace the link and fork the log (blobs beside
  // the link): refused, the link and the log as they were.
  const log = `${dir}/log/claims.jsonl`;
  const before = await Deno.readTextFile(log);
  await Deno.symlink(log, `${dir}/link.jsonl`);
  const linked = await append(dir, {
    model,
    fingerprint: fp,
    extra: ["--log", `${dir}/link.jsonl`],
  });
  assertCliCode(linked.stderr, "INPUT_MISSING");
  assert.match(linked.stderr, /is a symbolic link \(name the log file itself\)/);
  assert.ok((await Deno.lstat(`${dir}/link.jsonl`)).isSymlink);
  assert.equal(await Deno.readTextFile(log), before);
  await assert.rejects(() => Deno.stat(`${dir}/blobs`), Deno.errors.NotFound);
});

Deno.test("claims append refuses a stack that cannot run on the GPU (FlashAttention-3 on an A100, FlashAttention-2 on a V100), which an audit FAILs as contradicting its stack", async () => {
  const dir = await tempDir();
  const model = "qwen3-tiny-dense";
  const fp = "d".repeat(64);
  const first = await append(dir, { model, fingerprint: fp, extra: ["--log-id", "t"] });
  assert.equal(first.code, 0, first.stderr);
  // vLLM flattens the batch: its tokens name no pad token.
  await Deno.writeTextFile(`${dir}/flat.json`, JSON.stringify({ sequences: [[1, 2, 3], [7, 8]] }));
  const cases: [string[], RegExp][] = [
    [
      [
        "--stack",
        "vllm-0.11-eager-fa3-hopper",
        "--kernel",
        CATALOG,
        "--tokens",
        `${dir}/flat.json`,
      ],
      /record contradicts its stack 'vllm-0\.11-eager-fa3-hopper': attention backend 'fa3-vllm' cannot run on sm_80/,
    ],
    [
      // A recipe stack (its default recipe), with the padded batch it takes.
      ["--stack", "cutlass-3.5-hf-flash-attn", "--profile", "v100", "--sms", "80"],
      /record contradicts its stack 'cutlass-3\.5-hf-flash-attn': attention backend 'fa2-dao-fastmath' cannot run on sm_70/,
    ],
  ];
  for (const [extra, message] of cases) {
    const r = await runBitaudit(withOverrides([
      ...["claims", "append", "model_forward", "--log", `${dir}/log/claims.jsonl`],
      ...["--checkpoint", `${MODELS}/${model}`, "--tokens", `${dir}/tokens.json`],
      ...["--profile", "a100", "--fingerprint", fp, "--json"],
    ], extra));
    assert.equal(r.code, 2, `${extra.join(" ")}: ${r.stderr}`);
    assertCliCode(r.stderr, "CLAIM_INVALID");
    assert.match(r.stderr, message);
  }
  const log = await Deno.readTextFile(`${dir}/log/claims.jsonl`);
  assert.equal(log.trim().split("\n").length, 1, "nothing appended");
});

Deno.test("claims append never overwrites a blob holding other bytes, and waits for no held lock", async () => {
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
  assert.match(r.stderr, /left as it is; remove it and append again/, "says how to repair it");
  assert.equal(await Deno.readTextFile(blob), "{}", "left as it is");
  await Deno.remove(blob);
  const repaired = await append(dir, { model, fingerprint: fp });
  assert.equal(repaired.code, 0, repaired.stderr);
  assert.deepEqual(JSON.parse(repaired.stdout).blobs.written, [config], "stored again");
  await Deno.chmod(blob, 0o644);
  await Deno.writeTextFile(blob, "{}");
  assert.equal((await Deno.readTextFile(`${dir}/log/claims.jsonl`)).split("\n").length, 3);

  // Another append holds the log's lock (this test process, in its place).
  const lock = `${dir}/log/claims.jsonl.lock`;
  using held = await Deno.open(lock, { read: true, write: true, createNew: true });
  assert.ok(await held.tryLock(true));
  await held.write(new TextEncoder().encode("4242\n"));
  const locked = await append(dir, { model, fingerprint: fp });
  assert.equal(locked.code, 2);
  assertCliCode(locked.stderr, "LOG_LOCKED");
  assert.match(locked.stderr, /held by process 4242 /, "names the process that holds it");
  assert.equal(await Deno.readTextFile(lock), "4242\n", "the holder's lock is left alone");
  assert.equal((await Deno.readTextFile(`${dir}/log/claims.jsonl`)).split("\n").length, 3);
});

Deno.test("claims append never reports as stored a blob whose name a dangling link takes", async () => {
  const dir = await tempDir();
  const model = "qwen3-tiny-dense";
  const weights = Array.from(
    new Uint8Array(
      await crypto.subtle.digest(
        "SHA-256",
        await Deno.readFile(`${MODELS}/${model}/model.safetensors`),
      ),
    ),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  await Deno.mkdir(`${dir}/log/blobs`, { recursive: true });
  await Deno.symlink(`${dir}/nowhere`, `${dir}/log/blobs/${weights}`);
  const r = await append(dir, { model, fingerprint: "e".repeat(64), extra: ["--log-id", "t"] });
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assertCliCode(r.stderr, "BLOB_READ");
  await assert.rejects(Deno.stat(`${dir}/log/claims.jsonl`), Deno.errors.NotFound);
  assert.equal((await Deno.lstat(`${dir}/log/blobs/${weights}`)).isSymlink, true, "left as it is");
});

Deno.test("model forward --positions makes the fingerprint and layer chain of those rows: the record PASSes; a chain of other rows is refused at append", async () => {
  const dir = await tempDir(); // tokens: 5 and 3 tokens
  const positions = "1:2,0:4,0:1";
  const r = await runBitaudit([
    ...["model", "forward", "--checkpoint", `${MODELS}/qwen3-tiny-dense`],
    ...["--tokens", `${dir}/tokens.json`, "--profile", "a100", "--stack", STACK],
    ...["--kernel", CATALOG, "--threads", "1", "--positions", positions],
    ...["--out", `${dir}/h.safetensors`, "--json"],
  ]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.positions, [[1, 2], [0, 4], [0, 1]]);
  // Rows without a sequence's last token make no record: refused before the forward runs.
  const short = await runBitaudit([
    ...["model", "forward", "--checkpoint", `${MODELS}/qwen3-tiny-dense`],
    ...["--tokens", `${dir}/tokens.json`, "--profile", "a100", "--stack", STACK],
    ...["--kernel", CATALOG, "--threads", "1", "--positions", "1:2,0:1"],
    ...["--out", `${dir}/short.safetensors`],
  ]);
  assertCliCode(short.stderr, "USAGE");
  assert.match(short.stderr, /--positions must include 0:4, the last token of sequence 0/);
  await Deno.writeTextFile(`${dir}/forward.json`, r.stdout);
  const chain = ["--layer-chain", `${dir}/forward.json`];
  const model = "qwen3-tiny-dense";
  const first = await append(dir, {
    model,
    fingerprint: out.fingerprint,
    extra: ["--log-id", "p", "--positions", positions, ...chain],
  });
  assert.equal(first.code, 0, first.stderr);
  // The same chain for a record of the default rows (each last token): refused, nothing added.
  const other = await append(dir, { model, fingerprint: out.fingerprint, extra: chain });
  assertCliCode(other.stderr, "CLAIM_INVALID");
  assert.match(
    other.stderr,
    /layer chain was computed for other facts than the record's: positions \[\[1,2\],\[0,4\],\[0,1\]\]/,
  );
  // The same rows on another GPU: the chain was computed on the A100 (108 SMs).
  const moved = await append(dir, {
    model,
    fingerprint: out.fingerprint,
    extra: [
      ...["--positions", positions, ...chain],
      ...["--profile", "h100-sxm", "--kernel", "demo-qwen3-tiny-h100-sxm"],
    ],
  });
  assertCliCode(moved.stderr, "CLAIM_INVALID");
  assert.match(moved.stderr, /profile "a100", the record "h100-sxm"; SM count 108, the record 132/);
  // The same rows and facts with a fingerprint other than the one computed with the chain (h56).
  const contradicted = await append(dir, {
    model,
    fingerprint: "0".repeat(64),
    extra: ["--positions", positions, ...chain],
  });
  assertCliCode(contradicted.stderr, "CLAIM_INVALID");
  assert.match(contradicted.stderr, /--fingerprint "0{64}" differs from "[0-9a-f]{64}", the finge/);
  // The same rows and facts with another of the A100's catalogs (h81: an audit FAILed it at its
  // first layer, blaming attention): the chain was computed with the first one.
  const kernel = await append(dir, {
    model,
    fingerprint: out.fingerprint,
    extra: ["--positions", positions, ...chain, "--kernel", "demo-qwen3-tiny-a100-cublas-older"],
  });
  assertCliCode(kernel.stderr, "CLAIM_INVALID");
  assert.match(
    kernel.stderr,
    /kernel \{"catalog":"demo-qwen3-tiny-a100","catalogSha256":"[0-9a-f]{64}"\}, the record \{"catalog":"demo-qwen3-tiny-a100-cublas-older"/,
  );
  // Other tokens of the same lengths (one id changed): the chain is another batch's.
  const batch = JSON.parse(await Deno.readTextFile(`${dir}/tokens.json`));
  const seqs: number[][] = Array.isArray(batch) ? batch : batch.sequences;
  seqs[0]![0] = seqs[0]![0] === 1 ? 2 : 1;
  await Deno.writeTextFile(`${dir}/tokens2.json`, JSON.stringify(batch));
  const tokens = await append(dir, {
    model,
    fingerprint: out.fingerprint,
    extra: ["--positions", positions, ...chain, "--tokens", `${dir}/tokens2.json`],
  });
  assertCliCode(tokens.stderr, "CLAIM_INVALID");
  assert.match(tokens.stderr, /tokens of digest [0-9a-f]{16}…, the record's [0-9a-f]{16}…/);
  await assertAudit(dir, { out: "audit", statuses: ["PASS"] });
});

Deno.test("model forward and claims append refuse a folder with a *.safetensors beside model.safetensors and no index (vLLM would load it, HF not), committing nothing", async () => {
  const dir = await tempDir();
  const ckpt = `${dir}/ckpt`;
  await Deno.mkdir(ckpt);
  for (const f of ["config.json", "model.safetensors"]) {
    await Deno.copyFile(`${MODELS}/qwen3-tiny-dense/${f}`, `${ckpt}/${f}`);
  }
  await Deno.copyFile(`${ckpt}/model.safetensors`, `${ckpt}/extra.safetensors`);
  // Before, both ran on model.safetensors alone and the record committed it only (exit 0).
  const fwd = await runBitaudit([
    ...["model", "forward", "--checkpoint", ckpt, "--tokens", `${dir}/tokens.json`],
    ...["--profile", "a100", "--stack", STACK, "--kernel", CATALOG, "--threads", "1"],
    ...["--out", `${dir}/hidden.safetensors`],
  ]);
  assert.equal(fwd.code, 2, fwd.stderr);
  assertCliCode(fwd.stderr, "CHECKPOINT_AMBIGUOUS");
  assert.equal(fwd.stderr.trim().split("\n").length, 1, fwd.stderr);
  await assert.rejects(Deno.stat(`${dir}/hidden.safetensors`), Deno.errors.NotFound);
  const r = await runBitaudit([
    ...["claims", "append", "model_forward", "--log", `${dir}/log/claims.jsonl`],
    ...["--checkpoint", ckpt, "--tokens", `${dir}/tokens.json`, "--log-id", "stray-test"],
    ...["--stack", STACK, "--profile", "a100", "--kernel", CATALOG],
    ...["--fingerprint", "ab".repeat(32), "--json"],
  ]);
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "CHECKPOINT_AMBIGUOUS");
  await assert.rejects(Deno.stat(`${dir}/log`), Deno.errors.NotFound, "no log, no blob");
});

Deno.test("claims append --log lnk/../log/claims.jsonl: the lock is taken and removed at the normalised path, never where the system resolves the name", async () => {
  // Under the CLI's --allow-read --allow-write Deno resolves `..` by the text for an open but by
  // the file system for a removal: unnormalised, the lock was made in `log/` and the removal took
  // `elsewhere/log/claims.jsonl.lock` away, with everything in it.
  const dir = await tempDir();
  await Deno.mkdir(`${dir}/elsewhere/d`, { recursive: true });
  await Deno.symlink(`${dir}/elsewhere/d`, `${dir}/lnk`);
  await Deno.mkdir(`${dir}/elsewhere/log/claims.jsonl.lock`, { recursive: true });
  await Deno.writeTextFile(`${dir}/elsewhere/log/claims.jsonl.lock/notes`, "mine");
  // Refused once the lock is held (a new log needs --log-id): the lock is let go and removed.
  const r = await append(dir, {
    model: "qwen3-tiny-dense",
    fingerprint: "ab".repeat(32),
    extra: ["--log", `${dir}/lnk/../log/claims.jsonl`],
  });
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "USAGE");
  assert.equal(await Deno.readTextFile(`${dir}/elsewhere/log/claims.jsonl.lock/notes`), "mine");
  await assert.rejects(Deno.lstat(`${dir}/log`), Deno.errors.NotFound, "nothing left of the lock");
});
