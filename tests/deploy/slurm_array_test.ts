/**
 * The Slurm job array script in deploy/slurm/ run here once per array task, with the variables
 * Slurm sets and a worker key (WORKER_KEY): the merge of its results signs the single-process
 * bytes; a rerun task is a no-op, also with the key reached through a symlinked home; a key that
 * group or others may read, and an array that does not start at 0, are refused.
 */
import assert from "node:assert/strict";
import { REPO_ROOT } from "../cli/_run.ts";
import { mergesToSingle, plannedAudit } from "./_shard_run.ts";

const SCRIPT = `${REPO_ROOT}/deploy/slurm/audit-array.sbatch`;
const a = await plannedAudit(5);

async function task(
  id: number,
  count: number | string,
  options: { min?: number; key?: string; auditDir?: string; cwd?: string } = {},
) {
  const { min = 0, key = a.f.worker.key, auditDir = a.input } = options;
  const out = await new Deno.Command("bash", {
    args: [SCRIPT],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: {
      AUDIT_DIR: auditDir,
      BITAUDIT_HOME: REPO_ROOT,
      DENO: Deno.execPath(),
      SLURM_ARRAY_TASK_ID: String(id),
      SLURM_ARRAY_TASK_COUNT: String(count),
      SLURM_ARRAY_TASK_MIN: String(min),
      SLURM_ARRAY_TASK_MAX: String(min + Number(count) - 1),
      SLURM_CPUS_PER_TASK: "1",
      WORKER_KEY: key,
      NO_COLOR: "1",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("the Slurm array's tasks merge to the single-process attestation; reruns are no-ops", async () => {
  for (const id of [0, 1, 2]) {
    const r = await task(id, 3);
    assert.equal(r.code, 0, r.stderr);
  }
  // A home folder reached through a symlink: the key's real path lies outside --allow-read.
  await Deno.symlink(a.f.dir, `${a.f.dir}/home`);
  const again = await task(1, 3, { key: a.f.worker.key.replace(a.f.dir, `${a.f.dir}/home`) });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /already holds/);
  const files = [0, 1, 2].map((i) => `${a.input}/results/results-${i}.jsonl`);
  const m = await mergesToSingle(a, files, "slurm");
  assert.equal(m.code, 1, m.stderr);
  assert.ok(m.same, "byte-identical attestation and report");
});

Deno.test("the Slurm script signs with WORKER_KEY (--key) and refuses a key others may read", async () => {
  const script = await Deno.readTextFile(SCRIPT);
  assert.match(script, /^\s+--key "\$key" \\$/m);
  assert.match(script, /WORKER_KEY:-\$\{HOME:\?[^}]*\}\/\.bitaudit\/worker\.key/);
  assert.match(script, /--worker-pub worker\.pub/);
  const open = `${a.f.dir}/open.key`;
  await Deno.copyFile(a.f.worker.key, open);
  await Deno.chmod(open, 0o640);
  const r = await task(0, 3, { key: open });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error \[KEY_PERMISSIONS\]/);
});

Deno.test("the Slurm script refuses an array that is not 0..n-1", async () => {
  const r = await task(2, 3, { min: 1 });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error \[USAGE_SHARD\]/);
});

Deno.test("the Slurm script refuses array variables that are not integers, before any arithmetic", async () => {
  const r = await task(0, "PWD[$(echo INJECTED >&2)0]");
  assert.equal(r.code, 2);
  assert.doesNotMatch(r.stderr, /INJECTED/);
  assert.match(r.stderr, /^error \[USAGE_SHARD\]: .*not integers/m);
});

Deno.test("the Slurm script resolves a relative AUDIT_DIR and refuses a path with a comma", async () => {
  // From the audit folder's parent, AUDIT_DIR given relative: read where it names.
  const parent = a.input.slice(0, a.input.lastIndexOf("/"));
  const name = a.input.slice(a.input.lastIndexOf("/") + 1);
  const r = await task(0, 3, { auditDir: name, cwd: parent });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /already holds/); // the shard the first test wrote there
  const comma = `${parent}/with,comma`; // a real folder: its resolved path keeps the comma
  await Deno.mkdir(comma);
  const c = await task(0, 3, { auditDir: comma });
  assert.equal(c.code, 2);
  assert.match(c.stderr, /^error \[USAGE\]: .*comma/m);
});

Deno.test("the Slurm script runs deno with the cache only and the lockfile frozen", async () => {
  assert.match(
    await Deno.readTextFile(SCRIPT),
    /exec "\$DENO" run --no-prompt --cached-only --frozen/,
  );
});
