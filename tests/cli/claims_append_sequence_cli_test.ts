/**
 * `bitaudit claims append sequence`: records built from the facts a continuous-batching engine's
 * prover keeps (serving replay of the bundled dense Qwen3 checkpoint: history blob, tokens,
 * fingerprint, layer chain) are the simulated prover's records field for field and audit PASS; a
 * flipped fingerprint FAILs; refused facts exit 2 with one coded line and leave the log and the
 * blob folder as they were.
 */
import assert from "node:assert/strict";
import { runProver } from "../../src/cli/commands/claims.ts";
import { parseClaimLog, type SequenceWorkload } from "../../src/claims/mod.ts";
import {
  SERVED_CHECKPOINT,
  type ServedFacts,
  servedFacts,
  servedScenario,
  SERVING_CATALOG,
  SERVING_STACK,
} from "../prover/_served_fixture.ts";
import { appendTempDir, assertAudit, assertRefusals, flippedHex } from "./_append_fixture.ts";
import { REPO_ROOT, runBitaudit } from "./_run.ts";

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
  return runBitaudit([
    ...["claims", "append", "sequence", "--log", `${dir}/log/claims.jsonl`],
    ...[
      "--checkpoint",
      `${REPO_ROOT}/${SERVED_CHECKPOINT}`,
      "--history",
      `${dir}/history-${o.i}.json`,
    ],
    ...["--tokens", `${dir}/tokens-${o.i}.json`, "--stack", SERVING_STACK, "--profile", "a100"],
    ...["--kernel", SERVING_CATALOG, "--fingerprint", o.fingerprint, "--json", ...(o.extra ?? [])],
  ]);
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
