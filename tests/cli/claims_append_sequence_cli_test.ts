/**
 * `bitaudit claims append sequence`: records built from the facts a continuous-batching engine's
 * prover keeps (serving replay of the bundled dense Qwen3 checkpoint: history blob, tokens,
 * fingerprint, layer chain) are the simulated prover's records field for field and audit PASS; a
 * flipped fingerprint FAILs; refused facts exit 2 with one coded line and leave the log and the
 * blob folder as they were.
 */
import assert from "node:assert/strict";
import { runProver } from "../../src/cli/commands/claims.ts";
import {
  encodeServingHistory,
  parseClaimLog,
  type SequenceWorkload,
} from "../../src/claims/mod.ts";
import { assertCliCode } from "../_assert_code.ts";
import {
  SERVED_CHECKPOINT,
  type ServedFacts,
  servedFacts,
  servedScenario,
  SERVING_CATALOG,
  SERVING_STACK,
} from "../prover/_served_fixture.ts";
import { appendTempDir, assertAudit, assertRefusals, flippedHex } from "./_append_fixture.ts";
import { REPO_ROOT, runBitaudit, withOverrides } from "./_run.ts";

/** The engine's run in a temporary folder: its log and blobs in `prover/`, each sequence's facts. */
async function served(): Promise<{ dir: string; facts: ServedFacts[] }> {
  const dir = await appendTempDir();
  await Deno.writeTextFile(`${dir}/scenario.json`, JSON.stringify(servedScenario()));
  await runProver(`${dir}/scenario.json`, { out: `${dir}/prover`, progress: false, threads: 1 });
  const log = parseClaimLog(await Deno.readTextFile(`${dir}/prover/claims.jsonl`));
  const facts = await servedFacts(log.records, (d) => Deno.readFile(`${dir}/prover/blobs/${d}`));
  for (const [i, f] of facts.entries()) {
    await Deno.writeFile(`${dir}/history-${i}.json`, f.history);
    await Deno.writeTextFile(`${dir}/tokens-${i}.json`, JSON.stringify(f.tokens));
    await Deno.writeTextFile(`${dir}/chain-${i}.json`, JSON.stringify(f.layerChain));
  }
  return { dir, facts };
}

/** `claims append sequence` of served sequence `i`, with flags replaced or added by `extra`. */
function append(dir: string, o: { i: number; fingerprint: string; extra?: string[] }) {
  return runBitaudit(withOverrides([
    ...["claims", "append", "sequence", "--log", `${dir}/log/claims.jsonl`],
    ...[
      "--checkpoint",
      `${REPO_ROOT}/${SERVED_CHECKPOINT}`,
      "--history",
      `${dir}/history-${o.i}.json`,
    ],
    ...["--tokens", `${dir}/tokens-${o.i}.json`, "--stack", SERVING_STACK, "--profile", "a100"],
    ...["--kernel", SERVING_CATALOG, "--fingerprint", o.fingerprint, "--json"],
  ], o.extra ?? []));
}

Deno.test("claims append sequence: served sequences' records are the simulated prover's, audit PASS, and a flipped fingerprint FAILs", async () => {
  const { dir, facts } = await served();
  assert.equal(facts.length, 2);
  for (const [i, f] of facts.entries()) {
    const chain = ["--layer-chain", `${dir}/chain-${i}.json`];
    const r = await append(dir, {
      i,
      fingerprint: f.fingerprint,
      extra: [...(i === 0 ? ["--log-id", "served-test"] : []), ...chain],
    });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual([out.seq, out.records], [i, i + 1]);
    assert.equal(out.blobs.written.length, i === 0 ? 3 : 1, "config, weights, history; a history");
    const history = (f.record.predicate.workload as SequenceWorkload).history.sha256;
    assert.ok(out.blobs.written.includes(history), "the history is stored by its digest");
  }
  const log = parseClaimLog(await Deno.readTextFile(`${dir}/log/claims.jsonl`));
  for (const [i, f] of facts.entries()) {
    const p = log.records[i]!.predicate;
    const sim = f.record.predicate;
    assert.deepEqual([p.workload, p.fingerprint, p.batch], [
      sim.workload,
      sim.fingerprint,
      sim.batch,
    ]);
  }
  await assertAudit(dir, { out: "audit-pass", statuses: ["PASS", "PASS"] });

  const bad = await append(dir, { i: 1, fingerprint: flippedHex(facts[1]!.fingerprint) });
  assert.equal(bad.code, 0, bad.stderr);
  assert.equal(JSON.parse(bad.stdout).blobs.written.length, 0, "every blob is already stored");
  await assertAudit(dir, { out: "audit-fail", statuses: ["PASS", "PASS", "FAIL"] });
});

Deno.test("claims append sequence refuses bad facts with exit 2 and a coded line, changing nothing", async () => {
  const { dir, facts } = await served();
  const fp = facts[0]!.fingerprint;
  const first = await append(dir, { i: 0, fingerprint: fp, extra: ["--log-id", "t"] });
  assert.equal(first.code, 0, first.stderr);
  const write = async (name: string, value: unknown, indent?: number) => {
    await Deno.writeTextFile(`${dir}/${name}`, JSON.stringify(value, null, indent));
    return `${dir}/${name}`;
  };
  const history = JSON.parse(new TextDecoder().decode(facts[0]!.history));
  const { prompt, generated } = facts[0]!.tokens;
  const moe = `${REPO_ROOT}/tables/models/qwen3-tiny-moe`;
  await assertRefusals(dir, {
    cases: [
      [["--history", await write("malformed.json", { passes: history.passes })], "HISTORY_INVALID"],
      [["--history", await write("pretty.json", history, 1)], "HISTORY_INVALID"], // not RFC 8785
      [
        ["--tokens", await write("short.json", { prompt, generated: generated.slice(1) })],
        "TOKENS_INVALID",
      ],
      [["--history", `${dir}/history-1.json`], "TOKENS_INVALID"], // another sequence's history
      [["--checkpoint", moe], "CLAIM_INVALID"], // a MoE model: shared passes need expert rows
      [["--positions", "x"], "USAGE_NUMBER"],
      [["--history", `${dir}/absent.json`], "INPUT_MISSING"],
      [["--log-id", "other"], "LOG_CHAIN"],
    ],
    run: (extra) => append(dir, { i: 0, fingerprint: fp, extra }),
  });
  await assertRefusals(dir, {
    cases: [[["sequence"], "USAGE"], [
      ["model_forward", "--history", `${dir}/history-0.json`],
      "USAGE",
    ]],
    run: ([kind, ...extra]) =>
      runBitaudit([
        ...["claims", "append", kind!, "--log", `${dir}/log/claims.jsonl`, ...extra],
        ...[
          "--checkpoint",
          `${REPO_ROOT}/${SERVED_CHECKPOINT}`,
          "--tokens",
          `${dir}/tokens-0.json`,
        ],
        ...["--stack", SERVING_STACK, "--profile", "a100", "--kernel", SERVING_CATALOG],
        ...["--fingerprint", fp],
      ]),
  });
});

Deno.test("claims append sequence refuses a model forward chain of other rows than the sequence's one pass, and takes one of that pass", async () => {
  const dir = await appendTempDir();
  const prompt = [88, 277, 354];
  const write = (name: string, value: unknown) =>
    Deno.writeTextFile(`${dir}/${name}`, JSON.stringify(value)).then(() => `${dir}/${name}`);
  const forward = async (name: string, o: { sequences: number[][]; positions?: string }) => {
    const r = await runBitaudit([
      ...["model", "forward", "--checkpoint", `${REPO_ROOT}/${SERVED_CHECKPOINT}`],
      ...["--tokens", await write(`${name}-batch.json`, { sequences: o.sequences })],
      ...["--profile", "a100", "--stack", SERVING_STACK, "--kernel", SERVING_CATALOG],
      ...["--threads", "1", "--out", `${dir}/${name}.safetensors`, "--json"],
      ...(o.positions === undefined ? [] : ["--positions", o.positions]),
    ]);
    assert.equal(r.code, 0, r.stderr);
    await Deno.writeTextFile(`${dir}/${name}.json`, r.stdout);
    return JSON.parse(r.stdout) as { sequences: { fingerprint: string }[] };
  };
  const history = (entries: [number, number][], logitsRows: number) =>
    Deno.writeFile(
      `${dir}/${entries.length}-history.json`,
      encodeServingHistory([{
        entries: entries.map(([query, cached]) => ({ query, cached })),
        self: 0,
        rows: entries.reduce((a, [q]) => a + q, 0),
        logitsRows,
      }]),
    ).then(() => `${dir}/${entries.length}-history.json`);
  const appendWith = async (
    o: { history: string; fingerprint: string; chain: string; generated: number[] },
  ) =>
    runBitaudit([
      ...["claims", "append", "sequence", "--log", `${dir}/log/claims.jsonl`, "--log-id", "c"],
      ...["--checkpoint", `${REPO_ROOT}/${SERVED_CHECKPOINT}`, "--history", o.history],
      ...["--tokens", await write("tokens.json", { prompt, generated: o.generated })],
      ...["--stack", SERVING_STACK, "--profile", "a100", "--kernel", SERVING_CATALOG],
      ...["--fingerprint", o.fingerprint, "--layer-chain", o.chain],
    ]);
  // The prompt's pass shared with another request: model forward computes both requests' rows,
  // and its chain is over both, not the sequence's own row.
  const shared = await forward("shared", {
    sequences: [prompt, [459, 461, 266, 144]],
    positions: "0:2,1:3",
  });
  const refused = await appendWith({
    history: await history([[3, 0], [4, 0]], 2),
    generated: [329],
    fingerprint: shared.sequences[0]!.fingerprint,
    chain: `${dir}/shared.json`,
  });
  assert.equal(refused.code, 2, refused.stderr);
  assertCliCode(refused.stderr, "CLAIM_INVALID");
  assert.match(refused.stderr, /2 sequences.*no command computes a served sequence's chain/);
  // The prompt prefilled alone (its token is emitted, the request stops before a decode step):
  // model forward of that one sequence is its pass.
  const alone = await forward("alone", { sequences: [prompt] });
  const taken = await appendWith({
    history: await history([[3, 0]], 1),
    generated: [],
    fingerprint: alone.sequences[0]!.fingerprint,
    chain: `${dir}/alone.json`,
  });
  assert.equal(taken.code, 0, taken.stderr);
  await assertAudit(dir, { out: "audit", statuses: ["PASS"] });
});

Deno.test("claims append sequence says a history that begins with a byte-order mark does, whatever follows it (a Windows editor's '{}' was '$.schema is missing'), and writes no log", async () => {
  const dir = await appendTempDir();
  await Deno.writeFile(`${dir}/bom.json`, new TextEncoder().encode("\ufeff{}"));
  await Deno.writeTextFile(
    `${dir}/tokens.json`,
    JSON.stringify({ prompt: [1, 2], generated: [3] }),
  );
  const r = await runBitaudit([
    ...["claims", "append", "sequence", "--log", `${dir}/log/claims.jsonl`, "--log-id", "b"],
    ...["--checkpoint", `${REPO_ROOT}/${SERVED_CHECKPOINT}`, "--history", `${dir}/bom.json`],
    ...["--tokens", `${dir}/tokens.json`, "--stack", SERVING_STACK, "--profile", "a100"],
    ...["--kernel", SERVING_CATALOG, "--fingerprint", "0".repeat(64)],
  ]);
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "HISTORY_INVALID");
  assert.match(r.stderr, /Cannot read serving history: it begins with a UTF-8 byte-order mark;/);
  await assert.rejects(Deno.stat(`${dir}/log`), Deno.errors.NotFound);
});
