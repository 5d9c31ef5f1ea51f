/**
 * Shared harness of the attack suite: a small honest fixture (claim log, blobs, inspector key,
 * trust root, a signed attestation) and a table runner asserting, per hostile case, the exit
 * code, the error code of the one-line message, and that no file in the watched folder was
 * written, changed or removed.
 */
import assert from "node:assert/strict";
import { auditArgs, type AuditFixture, makeAuditFixture } from "../cli/_audit_fixture.ts";
import { type CliRun, runBitaudit } from "../cli/_run.ts";
import { sha256Hex } from "../../src/sha256_hex.ts";
import type { CliErrorCode } from "../../src/cli/exit_codes.ts";
import { assertCliCode } from "../_assert_code.ts";

export { auditArgs, type AuditFixture, runBitaudit };

/** One hostile case: what to write, what to run, and the expected refusal. */
export interface HostileCase {
  /** Test name. */
  readonly name: string;
  /** Prepares the case's input files inside `dir`; returns the CLI arguments. */
  readonly args: (dir: string) => Promise<string[]> | string[];
  /** Expected exit code. */
  readonly exit: number;
  /** Expected `error [CODE]` (omit for verdict exits without an error line). */
  readonly code?: CliErrorCode;
  /** The case writes outputs (a run that is accepted); skips the nothing-written check. */
  readonly writes?: boolean;
  /** Extra check of the run. */
  readonly check?: (run: CliRun, dir: string) => void | Promise<void>;
}

/**
 * A claim-log fixture with an attestation: `records` honest GEMM records audited with k = 2.
 *
 * @param records record count
 * @returns the fixture and the attestation path
 */
export async function signedFixture(
  records = 4,
): Promise<AuditFixture & { attestation: string }> {
  const f = await makeAuditFixture({ records, falsify: [] });
  const out = `${f.dir}/audit`;
  const r = await runBitaudit(auditArgs(f, out, 2));
  assert.equal(r.code, 0, r.stderr);
  return { ...f, attestation: `${out}/attestation.dsse.json` };
}

/**
 * Snapshot of every file under a folder: relative path -> sha256 of the bytes.
 *
 * @param dir folder
 * @returns the snapshot
 */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (rel: string) => {
    for await (const e of Deno.readDir(`${dir}/${rel}`)) {
      const p = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory) {
        out.set(`${p}/`, "dir");
        await walk(p);
      } else out.set(p, sha256Hex(await Deno.readFile(`${dir}/${p}`)));
    }
  };
  await walk("");
  return out;
}

/**
 * Registers one `Deno.test` per case. Each case runs in its own folder; the folder is
 * snapshotted after the case wrote its inputs and compared after the run (nothing written,
 * changed or removed), the exit code and the `error [CODE]:` line are asserted, and the folder
 * is removed at the end.
 *
 * @param group name prefix
 * @param cases the table
 */
export function hostileTable(group: string, cases: readonly HostileCase[]): void {
  for (const c of cases) {
    Deno.test(`${group}: ${c.name}`, async () => {
      const dir = await Deno.makeTempDir({ prefix: "bitaudit-hostile-" });
      try {
        const args = await c.args(dir);
        const before = await snapshot(dir);
        const run = await runBitaudit(args);
        assert.equal(run.code, c.exit, `exit ${run.code}\n${run.stderr}${run.stdout}`);
        if (c.code !== undefined) {
          const lines = run.stderr.trimEnd().split("\n");
          assert.equal(lines.length, 1, run.stderr);
          assertCliCode(lines[0]!, c.code);
          assert.ok(lines[0]!.startsWith(`error [${c.code}]: Cannot `), run.stderr);
        }
        // deno-lint-ignore no-control-regex
        assert.doesNotMatch(run.stderr + run.stdout, /\u001b/, "raw escape reached the terminal");
        if (!c.writes) {
          assert.deepEqual(await snapshot(dir), before, "the run wrote, changed or removed files");
        }
        await c.check?.(run, dir);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
}
