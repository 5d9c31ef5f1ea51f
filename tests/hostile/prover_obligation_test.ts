/**
 * Issue 19, part 5: the prover cannot steer the verdict with its own data. Deleting or
 * corrupting the committed input of a sampled (falsified) record makes that record FAIL with
 * `obligation: "committed-input"`, recorded in the signed attestation, and the audit goes on.
 */
import assert from "node:assert/strict";
import { auditArgs, makeAuditFixture } from "../cli/_audit_fixture.ts";
import { runBitaudit } from "../cli/_run.ts";

const dec = new TextDecoder();

async function fixture() {
  const f = await makeAuditFixture({
    records: 4,
    falsify: [{ seq: 1, kind: "fingerprint", bit: 3 }],
  });
  const lines = (await Deno.readTextFile(f.log)).trim().split("\n");
  const input = (i: number) => JSON.parse(lines[i]!).predicate.workload.input.sha256 as string;
  return { f, input };
}

async function auditAll(f: Awaited<ReturnType<typeof fixture>>["f"]) {
  const out = `${f.dir}/out`;
  const r = await runBitaudit([...auditArgs(f, out, 4), "--json", "--threads", "1"]);
  const envelope = JSON.parse(await Deno.readTextFile(`${out}/attestation.dsse.json`));
  const predicate =
    JSON.parse(dec.decode(Uint8Array.from(atob(envelope.payload), (c) => c.charCodeAt(0))))
      .predicate;
  return { r, out, predicate };
}

const cases: [string, (path: string) => Promise<void>, RegExp][] = [
  ["deleted", (p) => Deno.remove(p), /missing from the blob store/],
  [
    "corrupted",
    (p) => Deno.writeFile(p, new Uint8Array(8)),
    /does not hash to its committed digest/,
  ],
];

for (const [what, tamper, reason] of cases) {
  Deno.test(`audit FAILs a sampled record whose committed input the prover ${what}, and goes on`, async () => {
    const { f, input } = await fixture();
    await tamper(`${f.dir}/log/blobs/${input(1)}`);
    const { r, out, predicate } = await auditAll(f);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(JSON.parse(r.stdout).verdict, "FAILED");
    const one = predicate.results.find((x: { index: number }) => x.index === 1);
    assert.equal(one.status, "FAIL");
    assert.equal(one.obligation, "committed-input");
    assert.match(one.reason, /^prover did not produce committed input: input tensor/);
    assert.match(one.reason, reason);
    const others = predicate.results.filter((x: { index: number }) => x.index !== 1);
    assert.ok(
      others.every((x: { status: string; obligation?: string }) =>
        x.status === "PASS" && x.obligation === undefined
      ),
    );
    const check = await runBitaudit([
      "check",
      `${out}/attestation.dsse.json`,
      "--trust-root",
      f.trustRoot,
      "--log",
      f.log,
    ]);
    assert.equal(check.code, 0, check.stdout);
    await Deno.remove(f.dir, { recursive: true });
  });
}
