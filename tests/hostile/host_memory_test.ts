/**
 * A verifier short of memory blames no prover: an allocation the machine cannot make stops the
 * command with `error [MEMORY]` and exit 4, never a signed FAIL or NOT_VERIFIED of the record
 * being recomputed, nor an internal error.
 */
import assert from "node:assert/strict";
import { auditArgs, makeAuditFixture } from "../cli/_audit_fixture.ts";
import { REPO_ROOT } from "../cli/_run.ts";

Deno.test("an audit whose machine cannot reserve its buffers stops with MEMORY, nothing signed", async () => {
  const f = await makeAuditFixture({ records: 1, forward: 2, falsify: [] });
  const out = `${f.dir}/out`;
  // 40 GB of address space: enough to start, not for the pool arena's reservation.
  const line = [Deno.execPath(), "run", "-A", "src/cli/main.ts", ...auditArgs(f, out, 3)]
    .map((w) => `'${w}'`).join(" ");
  const r = await new Deno.Command("bash", {
    args: ["-c", `ulimit -v 40000000 && exec ${line}`],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const dec = new TextDecoder();
  const err = dec.decode(r.stderr);
  assert.equal(r.code, 4, `${dec.decode(r.stdout)}${err}`);
  assert.match(err, /^error \[MEMORY\]: Cannot /m, err);
  await assert.rejects(Deno.stat(`${out}/attestation.dsse.json`), Deno.errors.NotFound);
});
