/** The plan (and, where asked, the single-process audit) a pool test serves. */
import assert from "node:assert/strict";
import { auditArgs, type AuditFixture } from "../cli/_audit_fixture.ts";
import { runBitaudit } from "../cli/_run.ts";

/** The signing time every pool test records (so that attestations compare byte for byte). */
export const POOL_TIME = "2026-06-01T12:00:00Z";

/**
 * Writes `<fixture>/plan.json` for a k-record audit of the fixture's log; with `single`, first
 * audits the log in one process as the worker key (into `<fixture>/single`), expecting that exit.
 *
 * @param f the fixture
 * @param o `k`, the exit code expected of the single-process audit when one is wanted, and
 *   `extra` options both the audit and the plan take (e.g. `--max-record-products`)
 * @returns the plan's path
 */
export async function poolPlan(
  f: AuditFixture,
  o: { k: number; single?: number; extra?: string[] },
): Promise<string> {
  const args = [...auditArgs(f, `${f.dir}/single`, o.k), ...(o.extra ?? [])];
  if (o.single !== undefined) {
    const single = await runBitaudit([...args, "--time", POOL_TIME, "--worker-key", f.worker.key]);
    assert.equal(single.code, o.single, single.stderr);
  }
  const plan = `${f.dir}/plan.json`;
  const at = args.indexOf("--out");
  const planned = await runBitaudit([
    "audit",
    "plan",
    ...args.slice(1, at),
    ...args.slice(at + 2),
    "--out",
    plan,
  ]);
  assert.equal(planned.code, 0, planned.stderr);
  return plan;
}
