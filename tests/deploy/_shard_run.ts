/** A small audited log, its plan and the single-process attestation (shared by the deploy tests). */
import { auditArgs, type AuditFixture, makeAuditFixture } from "../cli/_audit_fixture.ts";
import { runBitaudit } from "../cli/_run.ts";

/** Signing time used by every run. */
export const TIME = "2026-06-01T12:00:00Z";

/**
 * A fixture with plan.json beside claims.jsonl and the single-process audit in `single/`, its
 * results recorded as computed by the fixture's worker key (`f.worker`).
 */
export interface PlannedAudit {
  f: AuditFixture;
  /** Folder of claims.jsonl, blobs/ and plan.json. */
  input: string;
  k: number;
}

/**
 * Builds the fixture (removed when the test module ends), plans it and audits it in one process.
 *
 * @param k sample size
 */
export async function plannedAudit(k: number): Promise<PlannedAudit> {
  const f = await makeAuditFixture({
    records: 8,
    falsify: [{ seq: 3, kind: "fingerprint", bit: 1 }], // sampled at k = 5 and 6
  });
  const input = f.log.replace(/\/claims\.jsonl$/, "");
  const args = auditArgs(f, `${f.dir}/single`, k);
  const single = await runBitaudit([...args, "--time", TIME, "--worker-key", f.worker.key]);
  if (single.code !== 1) throw new Error(single.stderr);
  const at = args.indexOf("--out");
  const planArgs = [...args.slice(1, at), "--out", `${input}/plan.json`];
  const plan = await runBitaudit(["audit", "plan", ...planArgs]);
  if (plan.code !== 0) throw new Error(plan.stderr);
  return { f, input, k };
}

/**
 * Merges results files, accepting those signed by the fixture's worker key, and tells whether
 * attestation and report equal the single-process ones.
 *
 * @param a the planned audit
 * @param files results files
 * @param out output folder name under the fixture
 */
export async function mergesToSingle(a: PlannedAudit, files: string[], out: string) {
  const r = await runBitaudit([
    "audit",
    "merge",
    "--plan",
    `${a.input}/plan.json`,
    ...files,
    "--key",
    a.f.key,
    "--worker-pub",
    a.f.worker.pub,
    "--out",
    `${a.f.dir}/${out}`,
    "--time",
    TIME,
  ]);
  const same = async (name: string) => {
    const x = await Deno.readFile(`${a.f.dir}/single/${name}`);
    const y = await Deno.readFile(`${a.f.dir}/${out}/${name}`).catch(() => new Uint8Array());
    return x.length === y.length && x.every((b, i) => b === y[i]);
  };
  return {
    code: r.code,
    stderr: r.stderr,
    same: await same("attestation.dsse.json") && await same("report.md"),
  };
}
