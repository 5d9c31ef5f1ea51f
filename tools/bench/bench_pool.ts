/**
 * Scale-out benchmark: audit throughput (records per minute) of one `audit work` process and of
 * the NATS JetStream pool with 1 and 2 `bitaudit worker` processes (each worker on one engine
 * thread, `audit serve` coordinating), the per-item overhead of the queue for a trivial item
 * (records of a kind that is NOT_VERIFIED at once: the pool's time minus the in-process time, per
 * item), and the `audit estimate` check: a pilot of one shard in five predicts the CPU time of the
 * whole plan, compared with the in-process run's measured item times. Each configuration runs
 * `runs` times (a fresh plan each: another audit id), medians reported; wall times include process
 * start. Log: `records` GEMM records of the demo scenario and `blocks` attention/FFN block records
 * at 128 tokens. Needs `nats-server` on the PATH. Usage:
 * `deno task bench:pool [runs] [--records 16] [--blocks 8]`.
 *
 * @module
 */
import { runProver } from "../../src/cli/commands/claims.ts";
import { generateKeys } from "../../src/cli/commands/key.ts";
import {
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  recordDigest,
} from "../../src/claims/mod.ts";
import type { ClaimRecord } from "../../src/claims/mod.ts";
import { startNatsServer } from "../../tests/pool/_nats_server.ts";

const root = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
const flag = (name: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i < 0 ? undefined : Deno.args[i + 1];
};
const runs = Number(Deno.args[0]?.startsWith("--") ? 3 : Deno.args[0] ?? 3);
const records = Number(flag("records") ?? 16);
const blocks = Number(flag("blocks") ?? 8);
const dir = await Deno.makeTempDir({ prefix: "bitaudit-bench-pool-" });
const key = (await generateKeys(`${dir}/inspector`)).privateKey;

function cli(args: string[], perms: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", ...perms, `${root}/src/cli/main.ts`, ...args],
    cwd: root,
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

async function ok(p: Deno.ChildProcess, what: string): Promise<void> {
  const out = await p.output();
  if (![0, 1, 3].includes(out.code)) {
    throw new Error(`${what}: exit ${out.code}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

async function plan(logDir: string, id: string): Promise<string> {
  const file = `${logDir}/plan-${id}.json`;
  const n = (await Deno.readTextFile(`${logDir}/claims.jsonl`)).trimEnd().split("\n").length;
  await ok(
    cli([
      "audit",
      "plan",
      "--log",
      `${logDir}/claims.jsonl`,
      "--randomness",
      "ab".repeat(32),
      "--round",
      "1",
      "--k",
      String(n),
      "--audit-id",
      id,
      "--out",
      file,
    ], [`--allow-read=${root},${logDir}`, `--allow-write=${logDir}`]),
    "plan",
  );
  return file;
}

async function inProcess(logDir: string, id: string): Promise<{ ms: number; out: string }> {
  const p = await plan(logDir, id);
  const out = `${logDir}/work-${id}.jsonl`;
  const t0 = performance.now();
  await ok(
    cli(["audit", "work", "--plan", p, "--shard", "0/1", "--out", out, "--threads", "1"], [
      `--allow-read=${root},${logDir}`,
      `--allow-write=${logDir}`,
    ]),
    "work",
  );
  return { ms: performance.now() - t0, out };
}

async function pool(logDir: string, id: string, workers: number, nats: string): Promise<number> {
  const p = await plan(logDir, id);
  const net = `--allow-net=${nats.replace("nats://", "")}`;
  const read = `--allow-read=${root},${logDir},${dir}`;
  const t0 = performance.now();
  const serve = cli([
    "audit",
    "serve",
    "--plan",
    p,
    "--nats",
    nats,
    "--key",
    key,
    "--out",
    `${logDir}/out-${id}`,
    "--json",
  ], [read, `--allow-write=${logDir}/out-${id}`, net]);
  const ws = await Promise.all(
    Array.from(
      { length: workers },
      () =>
        cli(["worker", "--nats", nats, "--log", `${logDir}/claims.jsonl`, "--threads", "1"], [
          read,
          net,
        ]),
    ),
  );
  await ok(serve, "serve");
  const ms = performance.now() - t0;
  for (const w of ws) w.kill("SIGTERM");
  for (const w of ws) await w.output();
  return ms;
}

async function trivialLog(n: number): Promise<string> {
  const out = `${dir}/trivial`;
  await Deno.mkdir(out);
  const list: ClaimRecord[] = [];
  let prev = GENESIS_PREV;
  for (let seq = 0; seq < n; seq++) {
    const r = makeClaimRecord({
      log: { logId: "trivial", seq, prev },
      hardware: { profile: "a100", profileSha256: "ab".repeat(32), count: 1 },
      software: { stack: "pytorch-cublas-linear", components: {} },
      parallelism: { tp: 1, pp: 1, ep: 1, dp: 1 },
      batch: { size: 1 },
      workload: { kind: "model_forward", model: "none", tokens: [seq] },
      fingerprint: { tensor: "h", dtype: "bf16", shape: [1, 1], sha256: "cd".repeat(32) },
    });
    list.push(r);
    prev = recordDigest(r);
  }
  await Deno.writeTextFile(`${out}/claims.jsonl`, formatClaimLog(list));
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const perMin = (n: number, ms: number) => (n / (ms / 60_000)).toFixed(1);

const scenario = JSON.parse(await Deno.readTextFile(`${root}/demo/scenario.json`));
scenario.records = records;
scenario.falsify = [];
scenario.blocks.records = blocks;
scenario.blocks.tokens = [128]; // a few hundred ms per block record, like a real audit's items
delete scenario.forward; // GEMM and block records only, as counted below
delete scenario.serving;
await Deno.writeTextFile(`${dir}/scenario.json`, JSON.stringify(scenario));
await runProver(`${dir}/scenario.json`, { out: `${dir}/log`, progress: false });
const realDir = `${dir}/log`;
const total = records + scenario.blocks.records;
const trivial = await trivialLog(200);
const nats = await startNatsServer();
try {
  console.log(
    `machine: ${navigator.hardwareConcurrency} cores, deno ${Deno.version.deno}; ${total} records (${records} GEMM, ${scenario.blocks.records} blocks), medians of ${runs}`,
  );
  const one: number[] = [];
  const p1: number[] = [];
  const p2: number[] = [];
  let last = "";
  for (let r = 0; r < runs; r++) {
    const x = await inProcess(realDir, `work-${r}`);
    one.push(x.ms);
    last = x.out;
    p1.push(await pool(realDir, `pool1-${r}`, 1, nats.url));
    p2.push(await pool(realDir, `pool2-${r}`, 2, nats.url));
  }
  console.log(`audit work, 1 process:   ${perMin(total, median(one))} records/min`);
  console.log(
    `pool, 1 worker:          ${perMin(total, median(p1))} records/min (${
      (median(p1) / median(one)).toFixed(2)
    }x the in-process time)`,
  );
  console.log(
    `pool, 2 workers:         ${perMin(total, median(p2))} records/min (${
      (median(one) / median(p2)).toFixed(2)
    }x the in-process throughput)`,
  );
  const t1: number[] = [];
  const tq: number[] = [];
  for (let r = 0; r < runs; r++) {
    t1.push((await inProcess(trivial, `t-${r}`)).ms);
    tq.push(await pool(trivial, `tq-${r}`, 1, nats.url));
  }
  console.log(
    `queue overhead per trivial item (200 items, 1 worker): ${
      ((median(tq) - median(t1)) / 200).toFixed(2)
    } ms`,
  );
  // Estimate: pilot = every fifth item's result of the last in-process run; actual = all items.
  const lines = (await Deno.readTextFile(last)).trimEnd().split("\n");
  const measured = lines.reduce((s, l) => s + JSON.parse(l).timing.ms, 0) / 1000;
  await Deno.writeTextFile(
    `${dir}/pilot.jsonl`,
    lines.filter((_, j) => j % 5 === 0).join("\n") + "\n",
  );
  const est = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "-A",
      `${root}/src/cli/main.ts`,
      "audit",
      "estimate",
      "--plan",
      `${realDir}/plan-work-${runs - 1}.json`,
      "--log",
      `${realDir}/claims.jsonl`,
      `${dir}/pilot.jsonl`,
      "--json",
    ],
    cwd: root,
  }).output();
  const e = JSON.parse(new TextDecoder().decode(est.stdout));
  const predicted = e.cpuHours * 3600;
  console.log(
    `estimate from a 1-in-5 pilot: ${predicted.toFixed(2)} CPU-s predicted, ${
      measured.toFixed(2)
    } CPU-s measured (items' time at 1 thread): ${
      (100 * (predicted - measured) / measured).toFixed(1)
    } %`,
  );
} finally {
  await nats.stop();
  await Deno.remove(dir, { recursive: true });
}
