/**
 * Sharded audits through the CLI: `audit plan`, n `audit work` processes (shard index from
 * JOB_COMPLETION_INDEX, as in a Kubernetes Indexed Job) signing with a worker key, and
 * `audit merge` sign the same bytes as a single-process `audit` computing as that worker;
 * missing shards make the verdict INCONCLUSIVE; two workers disagreeing fail the merge; reruns
 * are idempotent and nothing is overwritten.
 */
import assert from "node:assert/strict";
import { auditArgs, makeAuditFixture } from "./_audit_fixture.ts";
import { runBitaudit } from "./_run.ts";
import { assertCliCode } from "../_assert_code.ts";
import { payloadOf, signedLine } from "./_signed_results.ts";
import { generateKeys } from "../../src/cli/commands/key.ts";
import {
  buildTrustRoot,
  decodeBase64,
  decodePublicKeyPem,
  signItemResult,
} from "../../src/attest/mod.ts";
import { loadClaimLog, loadSigningKey } from "../../src/cli/load_inputs.ts";
import { loadPlanFile } from "../../src/cli/plan_inputs.ts";
import { blobsBeside, openWorkContext } from "../../src/cli/work_context.ts";
import { workItem } from "../../src/verify/mod.ts";

const TIME = "2026-06-01T12:00:00Z";
const f = await makeAuditFixture({
  records: 14,
  blocks: 2,
  falsify: [{ seq: 5, kind: "fingerprint", bit: 3 }],
});
const K = 16;
const PLAN = `${f.log.replace(/claims\.jsonl$/, "")}plan.json`;
const W = ["--key", f.worker.key];
const WORK_PERMS = ["--allow-read", "--allow-write", "--allow-env=JOB_COMPLETION_INDEX"];
const planArgs = auditArgs(f, PLAN, K).slice(1);
const single = await runBitaudit([
  ...auditArgs(f, `${f.dir}/single`, K),
  "--time",
  TIME,
  "--worker-key",
  f.worker.key,
]);
assert.equal(single.code, 1, single.stderr);
const planned = await runBitaudit(["audit", "plan", ...planArgs]);
assert.equal(planned.code, 0, planned.stderr);
const shards = await Promise.all(
  [0, 1, 2].map((i) =>
    work("3", _res(i), { perms: WORK_PERMS, env: { JOB_COMPLETION_INDEX: String(i) } })
  ),
);
for (const s of shards) assert.equal(s.code, 0, s.stderr);

function _res(i: number): string {
  return `${f.dir}/results-${i}.jsonl`;
}

/** `audit work` of one shard of the plan into `out`, as the fixture's worker. */
function work(
  shard: string,
  out: string,
  o: { perms?: string[]; env?: Record<string, string> } = {},
): ReturnType<typeof runBitaudit> {
  return runBitaudit(["audit", "work", ...W, "--plan", PLAN, "--shard", shard, "--out", out], o);
}

async function merge(files: string[], out: string, pubs = [f.worker.pub], extra: string[] = []) {
  return await runBitaudit([
    "audit",
    "merge",
    "--plan",
    PLAN,
    ...files,
    "--key",
    f.key,
    "--worker-pub",
    ...pubs,
    "--out",
    `${f.dir}/${out}`,
    "--time",
    TIME,
    "--json",
    ...extra,
  ]);
}

/**
 * Writes a trust root of the fixture's inspector key and the worker's key (a prover's, or an
 * inspector's with `edit` applied to its entry), as `check` would read the verdict with.
 */
async function workerRoot(
  name: string,
  o: { prover?: boolean; edit?: Record<string, unknown> },
): Promise<string> {
  const [inspector, worker] = await Promise.all(
    [f.pub, f.worker.pub].map(async (p) => decodePublicKeyPem(await Deno.readTextFile(p))),
  );
  const start = "2026-01-01T00:00:00Z";
  const doc = o.prover === true
    ? buildTrustRoot([inspector!], { start, provers: { keys: [worker!], start } })
    : buildTrustRoot([inspector!, worker!], { start });
  doc.keys = doc.keys.map((k) => k.keyid === f.worker.keyid ? { ...k, ...o.edit } : k);
  const path = `${f.dir}/${name}.json`;
  await Deno.writeTextFile(path, JSON.stringify(doc));
  return path;
}

Deno.test("audit plan + 3 audit work shards (JOB_COMPLETION_INDEX) + audit merge sign the single-process bytes", async () => {
  const m = await merge([0, 1, 2].map(_res), "merged");
  assert.equal(m.code, 1, m.stderr);
  assert.equal(JSON.parse(m.stdout).verdict, "FAILED");
  for (const name of ["attestation.dsse.json", "report.md"]) {
    const a = await Deno.readFile(`${f.dir}/single/${name}`);
    const b = await Deno.readFile(`${f.dir}/merged/${name}`);
    assert.deepEqual(b, a, name);
  }
  // A sharded audit applies no evidence policy (its steps take no --require-evidence): its
  // verdict records none, so a recomputation by a third party applies none either.
  const envelope = JSON.parse(await Deno.readTextFile(`${f.dir}/merged/attestation.dsse.json`));
  const audit =
    JSON.parse(new TextDecoder().decode(decodeBase64(envelope.payload))).predicate.audit;
  assert.ok(!("requireEvidence" in audit), JSON.stringify(audit));
  const lines = (await Promise.all([0, 1, 2].map((i) => Deno.readTextFile(_res(i)))))
    .join("").trimEnd().split("\n");
  assert.equal(lines.length, K, "every item in exactly one shard");
  // The reports say, as the signed statement does, whose word the results are (review: the HTML
  // report had called every result the inspector's own, and report.md said nothing).
  for (const name of ["report.md", "report.html"]) {
    const raw = await Deno.readTextFile(`${f.dir}/merged/${name}`);
    const text = name.endsWith(".md") ? raw.replace(/\\([^\w\s])/g, "$1") : raw; // as rendered
    assert.match(
      text,
      new RegExp(`Sharded audit: ${K} of them by worker key\\(s\\) ${f.worker.keyid.slice(0, 16)}`),
      name,
    );
    assert.match(text, /0 of those recomputed again by the inspector itself/, name);
  }
});

Deno.test("audit merge holds one result an item however often it repeats: a shard given three times counts its agreeing duplicates and signs the same bytes", async () => {
  const m = await merge([_res(0), _res(0), _res(1), _res(2), _res(0)], "merged-dups");
  assert.equal(m.code, 1, m.stderr);
  const shard0 = (await Deno.readTextFile(_res(0))).trimEnd().split("\n").length;
  assert.equal(JSON.parse(m.stderr).duplicates, 2 * shard0);
  for (const name of ["attestation.dsse.json", "report.md"]) {
    const a = await Deno.readFile(`${f.dir}/single/${name}`);
    const b = await Deno.readFile(`${f.dir}/merged-dups/${name}`);
    assert.deepEqual(b, a, name);
  }
});

Deno.test("audit work reruns idempotently and never overwrites another file", async () => {
  const before = await Deno.readFile(_res(1));
  const again = await work("1/3", _res(1));
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /already holds the \d+ results of shard 1\/3/);
  assert.deepEqual(await Deno.readFile(_res(1)), before);
  const other = await work("2/3", _res(1));
  assert.equal(other.code, 2);
  assert.match(other.stderr, /^error \[OUTPUT_EXISTS\]/);
  assert.deepEqual(await Deno.readFile(_res(1)), before);
  const noIndex = await work("3", "x", { perms: WORK_PERMS });
  assert.equal(noIndex.code, 2);
  assert.match(noIndex.stderr, /^error \[USAGE_SHARD\]/);
});

Deno.test("audit merge with a shard missing is INCONCLUSIVE (exit 3), never PASSED", async () => {
  const texts = await Promise.all([0, 1, 2].map((i) => Deno.readTextFile(_res(i))));
  const lost = texts.findIndex((t) =>
    t.trimEnd().split("\n").some((l) => payloadOf(l).result.status === "FAIL")
  );
  const m = await merge([0, 1, 2].filter((i) => i !== lost).map(_res), "missing");
  assert.equal(m.code, 3, m.stderr);
  const s = JSON.parse(m.stdout);
  assert.equal(s.verdict, "INCONCLUSIVE");
  const missing = JSON.parse(m.stderr.trim()).missing;
  assert.equal(missing.length, texts[lost]!.trimEnd().split("\n").length);
  for (const i of missing) {
    const r = s.results.find((x: { index: number }) => x.index === i);
    assert.equal(r.status, "NOT_VERIFIED");
  }
  // Without --json the partial merge is said as a warning, naming how many items had no result.
  const text = await runBitaudit([
    "audit",
    "merge",
    "--plan",
    PLAN,
    ...[0, 1, 2].filter((i) => i !== lost).map(_res),
    "--key",
    f.key,
    "--worker-pub",
    f.worker.pub,
    "--out",
    `${f.dir}/missing-text`,
    "--time",
    TIME,
  ]);
  assert.equal(text.code, 3, text.stderr);
  assert.match(
    text.stderr,
    new RegExp(
      `^warning: ${missing.length} of ${K} planned items had no result .*INCONCLUSIVE`,
      "m",
    ),
  );
});

Deno.test("results of another build of the same version (another manifest: other code or tables) are neither merged nor kept by a rerun of the shard (review h99)", async () => {
  // The shard's lines as a worker on another checkout of this version signs them.
  const lines = (await Deno.readTextFile(_res(1))).trimEnd().split("\n");
  const other = await Promise.all(lines.map((line) => {
    const v = payloadOf(line);
    return signedLine({
      ...v,
      assets: { ...v.assets, "tables/manifest.json": "0b".repeat(32) },
    }, f.worker.key);
  }));
  const stale = `${f.dir}/other-build-1.jsonl`;
  await Deno.writeTextFile(stale, other.join("\n") + "\n");
  const m = await merge([_res(0), stale, _res(2)], "other-build");
  assert.equal(m.code, 2);
  assert.match(
    m.stderr,
    /^error \[MERGE_VERSION\]: .*computed by another build \(version '[^']+', manifest 0b0b0b0b0b0b0b0b…\)/,
  );
  await assert.rejects(Deno.stat(`${f.dir}/other-build`));
  const before = await Deno.readFile(stale);
  const rerun = await work("1/3", stale);
  assert.equal(rerun.code, 2, rerun.stdout);
  assert.match(
    rerun.stderr,
    /^error \[OUTPUT_EXISTS\]: .*holds results of another build .*remove it to run the shard again/,
  );
  assert.deepEqual(await Deno.readFile(stale), before);
});

Deno.test("audit merge refuses a pool worker's result computed under a forged work order's budget: MERGE_FOREIGN naming the record, the item and both budgets, and writes nothing (review h180)", async () => {
  const lines = (await Promise.all([0, 1, 2].map((i) => Deno.readTextFile(_res(i)))))
    .join("").trimEnd().split("\n");
  const failLine = lines.find((l) => payloadOf(l).result.status === "FAIL")!;
  // What an honest pool worker signs for the falsified record after taking an order a peer on
  // the work subject forged with a budget of 1000 products a record (the plan sets none): a
  // NOT_VERIFIED that, merged with the other items' results, hid the FAIL behind INCONCLUSIVE.
  const { plan, planDigest } = await loadPlanFile(PLAN);
  const item = plan.items.find((it) => it.item === payloadOf(failLine).item)!;
  const { ctx, close } = await openWorkContext({ blobs: blobsBeside(f.log), threads: "1" });
  let forged;
  try {
    forged = await workItem(ctx, {
      planDigest,
      log: await loadClaimLog(f.log),
      item,
      serve: crypto.randomUUID(),
      maxRecordProducts: 1000,
    });
  } finally {
    close();
  }
  assert.equal(forged.result.status, "NOT_VERIFIED");
  const signed = await signItemResult(forged, await loadSigningKey(f.worker.key));
  const file = `${f.dir}/forged-budget.jsonl`;
  await Deno.writeTextFile(file, lines.filter((l) => l !== failLine).join("\n") + "\n" + signed);
  const m = await merge([file], "forged-budget");
  assert.equal(m.code, 2, m.stdout + m.stderr);
  assert.match(
    m.stderr,
    new RegExp(
      `^error \\[MERGE_FOREIGN\\]: Cannot merge record ${item.index} \\(item ` +
        `${item.item.slice(0, 16)}\\) from worker ${f.worker.keyid.slice(0, 16)}: it was ` +
        "computed under a budget of 1000 products a record, the plan's is the default " +
        "\\(2\\^48\\): it answers a work order that is not the plan's",
    ),
  );
  await assert.rejects(Deno.stat(`${f.dir}/forged-budget`));
});

Deno.test("audit merge refuses results signed by the inspector's own key (a --worker-pub that signed the plan) as WORKER_KEY_REFUSED before any result is read, and writes nothing", async () => {
  // The shards' results re-signed with the inspector's key, as a worker run on it would sign
  // them: merged, check would count them as the signer's own.
  const lines = (await Promise.all([0, 1, 2].map((i) => Deno.readTextFile(_res(i)))))
    .join("").trimEnd().split("\n");
  const file = `${f.dir}/inspector-signed.jsonl`;
  const resigned = await Promise.all(lines.map((l) => signedLine(payloadOf(l), f.key)));
  await Deno.writeTextFile(file, resigned.join("\n") + "\n");
  for (const [out, pubs] of [["as-worker", [f.pub]], ["as-worker-too", [f.worker.pub, f.pub]]]) {
    const m = await merge([file], out as string, pubs as string[]);
    assert.equal(m.code, 2, m.stdout + m.stderr);
    assert.match(
      m.stderr.trimEnd(),
      new RegExp(
        `^error \\[WORKER_KEY_REFUSED\\]: Cannot use --worker-pub '${f.pub}': its key ` +
          `${f.keyid.slice(0, 16)}… signed the plan '${PLAN}', and an inspector's key never ` +
          "doubles as a worker key",
      ),
    );
    await assert.rejects(Deno.stat(`${f.dir}/${out}`));
  }
});

Deno.test("audit merge fails with MERGE_CONFLICT when two workers disagree on an item, and writes nothing", async () => {
  const line = (await Deno.readTextFile(_res(0))).split("\n")[0]!;
  const other = await generateKeys(`${f.dir}/worker-b`);
  const v = payloadOf(line);
  const forged = `${f.dir}/forged.jsonl`;
  const disagree = { ...v, result: { ...v.result, reason: `${v.result.reason} (other worker)` } };
  await Deno.writeTextFile(forged, (await signedLine(disagree, other.privateKey)) + "\n");
  const m = await merge([...[0, 1, 2].map(_res), forged], "conflict", [
    f.worker.pub,
    other.publicKey,
  ]);
  assert.equal(m.code, 2);
  assert.match(m.stderr, /^error \[MERGE_CONFLICT\]/);
  assert.match(m.stderr, new RegExp(other.keyid.slice(0, 16)));
  await assert.rejects(Deno.stat(`${f.dir}/conflict`));
  const dup = await merge([...[0, 1, 2].map(_res), _res(0)], "dup");
  assert.equal(dup.code, 1, dup.stderr);
  assert.deepEqual(
    await Deno.readFile(`${f.dir}/dup/attestation.dsse.json`),
    await Deno.readFile(`${f.dir}/single/attestation.dsse.json`),
  );
});

Deno.test("audit work resumes a killed shard from <out>.partial: complete lines kept, a cut line redone", async () => {
  const full = (await Deno.readTextFile(_res(0))).split("\n");
  const out = `${f.dir}/resumed-0.jsonl`;
  await Deno.writeTextFile(`${out}.partial`, `${full[0]}\n${full[1]!.slice(0, 40)}`);
  const r = await work("0/3", out);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /\(1 kept from an interrupted run\)/);
  const lines = (await Deno.readTextFile(out)).trimEnd().split("\n");
  assert.equal(lines[0], full[0], "the kept line is reused as it was");
  const drop = (l: string) => JSON.stringify({ ...payloadOf(l), timing: null });
  assert.deepEqual(lines.map(drop), full.slice(0, -1).map(drop));
  await assert.rejects(Deno.stat(`${out}.partial`));
  const other = `${f.dir}/other-0.jsonl`;
  await Deno.writeTextFile(`${other}.partial`, `${full[0]}\n`);
  const refused = await work("1/3", other);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /^error \[OUTPUT_EXISTS\]/);
  // A file of the user's at <out>.partial (one line, no newline: it looks like a cut line) and a
  // link there are not this command's: refused, left as they were.
  const userNotes = `${f.dir}/notes-0.jsonl`;
  const precious = "my notes, one line, no newline";
  await Deno.writeTextFile(`${userNotes}.partial`, precious);
  const target = `${f.dir}/target.txt`;
  await Deno.writeTextFile(target, precious);
  const linked = `${f.dir}/linked-0.jsonl`;
  await Deno.symlink(target, `${linked}.partial`);
  // Text that starts as a result line would, then is not one.
  const lookalike = `${f.dir}/lookalike-0.jsonl`;
  const almost = '{"payload":"my notes, not a result';
  await Deno.writeTextFile(`${lookalike}.partial`, almost);
  for (
    const [o, why] of [
      [userNotes, /last line is not the start of a result line/],
      [linked, /not a regular file/],
      [lookalike, /last line is not the start of a result line/],
    ] as const
  ) {
    const r = await work("0/3", o);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^error \[OUTPUT_EXISTS\]/);
    assert.match(r.stderr, why);
    await assert.rejects(Deno.stat(o));
  }
  assert.equal(await Deno.readTextFile(`${userNotes}.partial`), precious);
  assert.equal(await Deno.readTextFile(`${lookalike}.partial`), almost);
  assert.equal(await Deno.readTextFile(target), precious);
  assert.ok((await Deno.lstat(`${linked}.partial`)).isSymlink);
});

Deno.test("audit work resumes an empty <out>.partial (a run killed before its first line) from the first item", async () => {
  const want = (await Deno.readTextFile(_res(0))).trimEnd().split("\n");
  const out = `${f.dir}/empty-0.jsonl`;
  await Deno.writeTextFile(`${out}.partial`, "");
  const r = await work("0/3", out);
  assert.equal(r.code, 0, r.stderr);
  const lines = (await Deno.readTextFile(out)).trimEnd().split("\n");
  const item = (l: string) => payloadOf(l).item;
  assert.deepEqual(lines.map(item), want.map(item), "every item of the shard, computed afresh");
  await assert.rejects(Deno.stat(`${out}.partial`), Deno.errors.NotFound);
});

Deno.test("audit work without --log, its plan away from the log, names the default it read and the flag", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-planlog-" });
  try {
    const plan = `${dir}/plan.json`;
    await Deno.copyFile(PLAN, plan);
    const r = await runBitaudit([
      ...["audit", "work", "--plan", plan, "--shard", "0/1", ...W, "--out", `${dir}/r.jsonl`],
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /^error \[INPUT_MISSING\]: Cannot read the claim log beside the plan, '.*claims\.jsonl': no such file \(give it with --log\)/m,
    );
    const given = await runBitaudit([
      ...["audit", "work", "--plan", plan, "--log", f.log, "--shard", "0/1", ...W],
      ...["--out", `${dir}/r.jsonl`],
    ]);
    assert.equal(given.code, 0, given.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("audit work and audit merge take --threads in the range every command takes, refused as a usage error", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-threads-" });
  try {
    const max = Math.max(8, 2 * navigator.hardwareConcurrency);
    for (const threads of ["100000", String(max + 1), "0"]) {
      const work = await runBitaudit([
        ...["audit", "work", "--plan", PLAN, "--log", f.log, "--shard", "0/1", ...W],
        ...["--out", `${dir}/r.jsonl`, "--threads", threads],
      ]);
      assert.equal(work.code, 2, work.stderr);
      assert.match(
        work.stderr,
        new RegExp(`^error \\[USAGE_NUMBER\\]: .*--threads.*1\\.\\.${max}`),
      );
      const merged = await runBitaudit([
        ...["audit", "merge", "--plan", PLAN, _res(0), _res(1), _res(2), "--key", f.key],
        ...["--worker-pub", f.worker.pub, "--reverify", "1", "--out", `${dir}/m`],
        ...["--time", TIME, "--threads", threads],
      ]);
      assert.equal(merged.code, 2, merged.stderr);
      assert.match(merged.stderr, /^error \[USAGE_NUMBER\]: .*--threads/);
    }
    assert.deepEqual([...Deno.readDirSync(dir)], [], "nothing written");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("audit merge --reverify refuses a blob folder that is not there (read with the log, before the merge), and writes nothing", async () => {
  const out = `${f.dir}/reverify-no-blobs`;
  const r = await runBitaudit([
    ...["audit", "merge", "--plan", PLAN, _res(0), _res(1), _res(2), "--key", f.key],
    ...["--worker-pub", f.worker.pub, "--reverify", "1", "--out", out, "--time", TIME],
    ...["--blobs", `${f.dir}/no-such-blobs`],
  ]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^error \[INPUT_MISSING\]: Cannot read blobs from '.*no-such-blobs'/m);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
});

Deno.test("audit estimate refuses a --blobs that is not a folder (missing, a file) as audit does, though none of the plan's GEMM and block records reads it", async () => {
  for (
    const [blobs, why] of [[`${f.dir}/no-such-blobs`, "no such folder"], [PLAN, "not a folder"]]
  ) {
    const r = await runBitaudit(["audit", "estimate", "--plan", PLAN, "--blobs", blobs!]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`^error \\[INPUT_MISSING\\]: Cannot read blobs from '.*': ${why} `, "m"),
    );
    assert.equal(r.stdout, "");
  }
  // Without --blobs, nothing of the plan needs a blob folder: predicted as before.
  const plain = await runBitaudit(["audit", "estimate", "--plan", PLAN]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /^predicted: /m);
});

Deno.test("audit merge and audit refuse a --time in the future (check would refuse the verdict), and write nothing", async () => {
  const out = `${f.dir}/future`;
  const r = await runBitaudit([
    "audit",
    "merge",
    "--plan",
    PLAN,
    _res(0),
    "--key",
    f.key,
    "--worker-pub",
    f.worker.pub,
    "--time",
    "2099-01-01T00:00:00Z",
    "--out",
    out,
  ]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /^error \[USAGE_TIME\]: Cannot use --time 2099-01-01T00:00:00Z: it is in the future/,
  );
  await assert.rejects(() => Deno.stat(out), Deno.errors.NotFound);
  const a = await runBitaudit([
    ...auditArgs(f, `${f.dir}/future-audit`, K),
    "--time",
    "2099-01-01T00:00:00Z",
  ]);
  assert.match(a.stderr, /^error \[USAGE_TIME\]: .* in the future/);
});

Deno.test("audit work writes an --out name as long as a file name may be (its .partial named short) and refuses a longer one as OUTPUT_WRITE, never an internal error (review h103)", async () => {
  const long = `${f.dir}/${"r".repeat(250)}`;
  const ok = await work("0/3", long, { perms: WORK_PERMS });
  assert.equal(ok.code, 0, ok.stderr);
  const lines = async (p: string) => (await Deno.readTextFile(p)).trimEnd().split("\n").length;
  assert.equal(await lines(long), await lines(_res(0)));
  const tooLong = await work("0/3", `${f.dir}/${"s".repeat(256)}`, { perms: WORK_PERMS });
  assert.equal(tooLong.code, 2, tooLong.stderr);
  assertCliCode(tooLong.stderr, "OUTPUT_WRITE");
});

Deno.test("audit merge and audit serve --trust-root refuse a --worker-pub key the root lists as a prover's (USAGE_KEYS) before any result is read or order published, and write nothing", async () => {
  const root = await workerRoot("root-prover-worker", { prover: true });
  const refusal = new RegExp(
    `^error \\[USAGE_KEYS\\]: Cannot use --worker-pub '[^']*worker\\.pub': it is the prover's ` +
      `key ${f.worker.keyid.slice(0, 16)}… \\(a prover key of --trust-root '[^']*root-prover-` +
      "worker\\.json'\\), and the prover may not sign or compute the audit of its own claims",
  );
  const m = await merge([0, 1, 2].map(_res), "root-prover", [f.worker.pub], ["--trust-root", root]);
  assert.equal(m.code, 2, m.stdout + m.stderr);
  assert.match(m.stderr, refusal);
  await assert.rejects(Deno.stat(`${f.dir}/root-prover`));
  // No server is reached: the keys are refused before the serve connects.
  const s = await runBitaudit([
    "audit",
    "serve",
    ...["--plan", PLAN, "--nats", "nats://127.0.0.1:9", "--key", f.key],
    ...["--worker-pub", f.worker.pub, "--out", `${f.dir}/root-prover-serve`, "--trust-root", root],
  ]);
  assert.equal(s.code, 2, s.stdout + s.stderr);
  assert.match(s.stderr, refusal);
  await assert.rejects(Deno.stat(`${f.dir}/root-prover-serve`));
});

/** The refusal to sign for the fixture's worker key revoked in the trust root given. */
function revokedWorkerRefusal(flags = ""): RegExp {
  return new RegExp(
    "^error \\[WORKER_KEY_REFUSED\\]: Cannot sign the verdict: check with the trust root " +
      `given would refuse its workers: worker key ${f.worker.keyid.slice(0, 16)}…, which ` +
      `computed ${K} of the ${K} results, is an inspector key of your trust root, revoked: key ` +
      "compromise at the verdict's time 2026-06-01T12:00:00Z$",
    flags,
  );
}

Deno.test("audit merge --trust-root refuses to sign results of a worker key the root holds as an inspector key revoked at the verdict's time (WORKER_KEY_REFUSED), and writes nothing; a worker key it accepts or does not list signs the same bytes as without", async () => {
  const revoked = await workerRoot("root-revoked-worker", {
    edit: { revoked: { time: "2026-05-01T00:00:00Z", reason: "key compromise" } },
  });
  const files = [0, 1, 2].map(_res);
  const m = await merge(files, "root-revoked", [f.worker.pub], ["--trust-root", revoked]);
  assert.equal(m.code, 2, m.stdout + m.stderr);
  assertCliCode(m.stderr.trimEnd(), "WORKER_KEY_REFUSED");
  assert.match(
    m.stderr.trimEnd(),
    revokedWorkerRefusal(),
  );
  await assert.rejects(Deno.stat(`${f.dir}/root-revoked`));
  const valid = await workerRoot("root-valid-worker", {});
  for (const [out, root] of [["root-valid", valid], ["root-unlisted", f.trustRoot]] as const) {
    const ok = await merge(files, out, [f.worker.pub], ["--trust-root", root]);
    assert.equal(ok.code, 1, ok.stderr);
    assert.deepEqual(
      await Deno.readFile(`${f.dir}/${out}/attestation.dsse.json`),
      await Deno.readFile(`${f.dir}/single/attestation.dsse.json`),
    );
  }
});

Deno.test("audit --worker-key --trust-root judges the worker key as audit merge does: a prover key of the root at once (USAGE_KEYS), an inspector key revoked at the verdict's time before signing (WORKER_KEY_REFUSED), nothing written; a root that accepts it or does not list it signs the single-process bytes", async () => {
  const single = (out: string, root: string) =>
    runBitaudit([
      ...auditArgs(f, `${f.dir}/${out}`, K),
      ...["--time", TIME, "--worker-key", f.worker.key, "--trust-root", root],
    ]);
  const prover = await single(
    "single-prover",
    await workerRoot("single-root-prover", { prover: true }),
  );
  assert.equal(prover.code, 2, prover.stdout + prover.stderr);
  assert.match(
    prover.stderr,
    new RegExp(
      `^error \\[USAGE_KEYS\\]: Cannot use --worker-key '[^']*worker\\.key': it is the ` +
        `prover's key ${f.worker.keyid.slice(0, 16)}… \\(a prover key of --trust-root`,
    ),
  );
  assert.doesNotMatch(prover.stderr, /verifying|predicted/);
  await assert.rejects(Deno.stat(`${f.dir}/single-prover`));
  const revoked = await workerRoot("single-root-revoked", {
    edit: { revoked: { time: "2026-05-01T00:00:00Z", reason: "key compromise" } },
  });
  const r = await single("single-revoked", revoked);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(
    r.stderr.trimEnd(),
    revokedWorkerRefusal("m"),
  );
  await assert.rejects(Deno.stat(`${f.dir}/single-revoked`));
  const valid = await workerRoot("single-root-valid", {});
  for (const [out, root] of [["single-valid", valid], ["single-unlisted", f.trustRoot]]) {
    const ok = await single(out!, root!);
    assert.equal(ok.code, 1, ok.stderr);
    assert.deepEqual(
      await Deno.readFile(`${f.dir}/${out}/attestation.dsse.json`),
      await Deno.readFile(`${f.dir}/single/attestation.dsse.json`),
    );
  }
});

/**
 * Writes a trust root of the worker's key and the fixture's inspector key as inspector keys, with
 * `edit` applied to the inspector key's entry (null: the root does not list it).
 */
async function inspectorRoot(name: string, edit: Record<string, unknown> | null): Promise<string> {
  const [inspector, worker] = await Promise.all(
    [f.pub, f.worker.pub].map(async (p) => decodePublicKeyPem(await Deno.readTextFile(p))),
  );
  const doc = buildTrustRoot([inspector!, worker!], { start: "2026-01-01T00:00:00Z" });
  doc.keys = doc.keys.flatMap((k) =>
    k.keyid !== f.keyid ? [k] : edit === null ? [] : [{ ...k, ...edit }]
  );
  const path = `${f.dir}/${name}.json`;
  await Deno.writeTextFile(path, JSON.stringify(doc));
  return path;
}

Deno.test("audit merge and audit serve --trust-root refuse a --key the root does not count as a valid inspector key at the verdict's time (SIGNING_KEY_REFUSED) before any result is read or order published, and write nothing (review h184)", async () => {
  const files = [0, 1, 2].map(_res);
  const cases = [
    [
      "revoked",
      { revoked: { time: "2026-05-01T00:00:00Z", reason: "key compromise" } },
      "is revoked: key compromise at the stated time 2026-06-01T12:00:00.000Z",
    ],
    [
      "expired",
      { validFor: { start: "2026-01-01T00:00:00Z", end: "2026-03-01T00:00:00Z" } },
      "is expired at the stated time 2026-06-01T12:00:00.000Z",
    ],
    [
      "not-yet",
      { validFor: { start: "2026-07-01T00:00:00Z" } },
      "is not yet valid at the stated time 2026-06-01T12:00:00.000Z",
    ],
    ["unlisted", null, "is not in the trust root"],
  ] as const;
  for (const [name, edit, why] of cases) {
    const root = await inspectorRoot(`root-key-${name}`, edit);
    const refusal = new RegExp(
      `^error \\[SIGNING_KEY_REFUSED\\]: Cannot sign a verdict with --key '[^']*inspector\\.key': ` +
        `check with --trust-root '[^']*root-key-${name}\\.json' would count, at ` +
        `2026-06-01T12:00:00Z, 0 valid inspector signature\\(s\\) of the 1 required: key ` +
        `${f.keyid.slice(0, 16)}… ${why.replace(/[.()]/g, "\\$&")}$`,
    );
    const m = await merge(files, `key-${name}`, [f.worker.pub], ["--trust-root", root]);
    assert.equal(m.code, 2, m.stdout + m.stderr);
    assert.match(m.stderr.trimEnd(), refusal);
    await assert.rejects(Deno.stat(`${f.dir}/key-${name}`));
    // No server is reached: the keys are refused before the serve connects.
    const s = await runBitaudit([
      "audit",
      "serve",
      ...["--plan", PLAN, "--nats", "nats://127.0.0.1:9", "--key", f.key, "--time", TIME],
      ...["--worker-pub", f.worker.pub, "--out", `${f.dir}/key-${name}-serve`],
      ...["--trust-root", root],
    ]);
    assert.equal(s.code, 2, s.stdout + s.stderr);
    assert.match(s.stderr.trimEnd(), refusal);
    await assert.rejects(Deno.stat(`${f.dir}/key-${name}-serve`));
  }
});
