/**
 * `check`'s flags that only a recomputation reads (`--threads`, `--blobs`) are refused without
 * `--recompute` (USAGE_RECOMPUTE, exit 2) rather than silently ignored.
 */
import assert from "node:assert/strict";
import { assertCliCode } from "../_assert_code.ts";
import { auditArgs, makeAuditFixture } from "./_audit_fixture.ts";
import { runBitaudit } from "./_run.ts";

const f = await makeAuditFixture({ records: 2, falsify: [] });
const audited = await runBitaudit(auditArgs(f, `${f.dir}/audit`, 1));
assert.equal(audited.code, 0, audited.stderr);
const CHECK = ["check", `${f.dir}/audit/attestation.dsse.json`, "--trust-root", f.trustRoot];

Deno.test("check refuses --blobs and --threads without --recompute with USAGE_RECOMPUTE", async () => {
  assert.equal((await runBitaudit(CHECK)).code, 0);
  for (const flags of [["--blobs", `${f.dir}/log/blobs`], ["--threads", "1"]]) {
    for (const log of [[], ["--log", f.log]]) {
      const r = await runBitaudit([...CHECK, ...log, ...flags]);
      assert.equal(r.code, 2, `${flags.join(" ")}: ${r.stdout}${r.stderr}`);
      assertCliCode(r.stderr, "USAGE_RECOMPUTE");
      assert.match(r.stderr, new RegExp(`Cannot use ${flags[0]} without --recompute`));
      assert.equal(r.stdout, "");
    }
  }
});

Deno.test("check takes --blobs with --recompute", async () => {
  const r = await runBitaudit([
    ...[...CHECK, "--log", f.log, "--recompute", "--threads", "1"],
    ...["--blobs", `${f.dir}/log/blobs`],
  ]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
});
