/**
 * The Slurm job array script in deploy/slurm/ run here once per array task, with the variables
 * Slurm sets: the merge of its results signs the single-process bytes; a rerun task is a no-op;
 * an array that does not start at 0 is refused.
 */
import assert from "node:assert/strict";
import { REPO_ROOT } from "../cli/_run.ts";
import { mergesToSingle, plannedAudit } from "./_shard_run.ts";

const SCRIPT = `${REPO_ROOT}/deploy/slurm/audit-array.sbatch`;
const a = await plannedAudit(5);

async function task(id: number, count: number, min = 0) {
  const out = await new Deno.Command("bash", {
    args: [SCRIPT],
    env: {
      AUDIT_DIR: a.input,
      BITAUDIT_HOME: REPO_ROOT,
      DENO: Deno.execPath(),
      SLURM_ARRAY_TASK_ID: String(id),
      SLURM_ARRAY_TASK_COUNT: String(count),
      SLURM_ARRAY_TASK_MIN: String(min),
      SLURM_ARRAY_TASK_MAX: String(min + count - 1),
      SLURM_CPUS_PER_TASK: "1",
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
  const again = await task(1, 3);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /already holds/);
  const files = [0, 1, 2].map((i) => `${a.input}/results/results-${i}.jsonl`);
  const m = await mergesToSingle(a, files, "slurm");
  assert.equal(m.code, 1, m.stderr);
  assert.ok(m.same, "byte-identical attestation and report");
});

Deno.test("the Slurm script refuses an array that is not 0..n-1", async () => {
  const r = await task(2, 3, 1);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error \[USAGE_SHARD\]/);
});
