/**
 * Evidence levels in results: every recomputed result lists how each component it rests on is
 * known, the signed verdict carries it, `audit --require-evidence` turns a matching record that
 * rests on weaker evidence into NOT_VERIFIED (naming the component), and `check
 * --require-evidence` applies the same minimum as a policy on an attestation.
 */
import assert from "node:assert/strict";
import { decodeBase64 } from "../../src/attest/mod.ts";
import { assertCliCode } from "../_assert_code.ts";
import { auditArgs, makeAuditFixture } from "./_audit_fixture.ts";
import { runBitaudit } from "./_run.ts";

const f = await makeAuditFixture({ records: 6, falsify: [], forward: 2 });

async function audit(out: string, extra: string[] = []) {
  const r = await runBitaudit([...auditArgs(f, `${f.dir}/${out}`, 8), "--json", ...extra]);
  const envelope = JSON.parse(await Deno.readTextFile(`${f.dir}/${out}/attestation.dsse.json`));
  const statement = JSON.parse(new TextDecoder().decode(decodeBase64(envelope.payload)));
  return { r, predicate: statement.predicate, path: `${f.dir}/${out}/attestation.dsse.json` };
}

const plain = await audit("plain");

Deno.test("every recomputed result of the signed verdict lists its components and their levels", () => {
  assert.equal(plain.r.code, 0, plain.r.stderr);
  const results = plain.predicate.results as {
    status: string;
    evidence?: { component: string; level: string }[];
  }[];
  assert.ok(results.length > 0);
  for (const r of results) {
    assert.equal(r.status, "PASS");
    const e = r.evidence!;
    assert.ok(e.some((x) => /^datapath a100 /.test(x.component)), JSON.stringify(e));
    assert.ok(e.some((x) => /^GEMM kernel/.test(x.component)), JSON.stringify(e));
    for (const x of e) {
      assert.ok(
        ["derived-from-source", "checked-against-peer", "measured-on-gpu"].includes(x.level),
      );
    }
  }
  // The A100's bf16 datapath is GPU-measured; the demo catalogs are illustrative (source only).
  const all = results.flatMap((r) => r.evidence!);
  assert.ok(all.some((x) => x.component.startsWith("datapath") && x.level === "measured-on-gpu"));
  assert.ok(all.some((x) => x.level === "derived-from-source"));
});

Deno.test("audit --require-evidence: matching records that rest on weaker evidence are NOT_VERIFIED, naming it", async () => {
  const strict = await audit("strict", ["--require-evidence", "measured-on-gpu"]);
  assert.equal(strict.r.code, 3, strict.r.stderr); // INCONCLUSIVE
  const out = JSON.parse(strict.r.stdout);
  assert.equal(out.verdict, "INCONCLUSIVE");
  for (const r of strict.predicate.results as { status: string; reason: string }[]) {
    assert.equal(r.status, "NOT_VERIFIED");
    assert.match(
      r.reason,
      /matches the fingerprint, but it rests on .*, derived-from-source, below/,
    );
  }
  const lax = await audit("lax", ["--require-evidence", "derived-from-source"]);
  assert.equal(lax.r.code, 0, lax.r.stderr);
  const bad = await runBitaudit([
    ...auditArgs(f, `${f.dir}/bad`, 8),
    "--require-evidence",
    "hearsay",
  ]);
  assertCliCode(bad.stderr, "USAGE_POLICY");
  await assert.rejects(() => Deno.stat(`${f.dir}/bad`), Deno.errors.NotFound);
});

Deno.test("audit --require-evidence: the verdict records the policy, and check --recompute recomputes under it (an honest attestation stays VALID)", async () => {
  assert.equal(plain.predicate.audit.requireEvidence, undefined, "no policy, none recorded");
  const strict = await audit("recorded", ["--require-evidence", "measured-on-gpu"]);
  assert.equal(strict.r.code, 3, strict.r.stderr);
  assert.equal(strict.predicate.audit.requireEvidence, "measured-on-gpu");
  const md = await Deno.readTextFile(`${f.dir}/recorded/report.md`);
  assert.match(md, /^- evidence required: .*less well than measured-on-gpu is NOT_VERIFIED/m);
  const c = await runBitaudit([
    "check",
    strict.path,
    "--trust-root",
    f.trustRoot,
    "--log",
    f.log,
    "--recompute",
    "--threads",
    "1",
  ]);
  assert.equal(c.code, 0, c.stdout + c.stderr);
  assert.match(
    c.stdout,
    /^ok {3}verdict: INCONCLUSIVE follows from the results, every PASS meeting the audit's required evidence measured-on-gpu$/m,
  );
  assert.match(
    c.stdout,
    /^ok {3}recompute\[\d+\]: attested NOT_VERIFIED, recomputed NOT_VERIFIED$/m,
  );
  assert.doesNotMatch(c.stdout, /^FAIL /m);
  assert.match(c.stdout, /^VALID attestation/m);
});

Deno.test("FAIL results of a falsified log list their evidence too, and --require-evidence leaves a FAIL a FAIL", async () => {
  const lied = await makeAuditFixture({
    records: 6,
    falsify: [{ seq: 2, kind: "fingerprint", bit: 3 }],
    forward: 2,
  });
  const run = (out: string, extra: string[]) =>
    runBitaudit([...auditArgs(lied, `${lied.dir}/${out}`, 8), "--json", ...extra]);
  for (
    const [out, extra] of [["a", []], ["b", ["--require-evidence", "measured-on-gpu"]]] as const
  ) {
    const r = await run(out, [...extra]);
    assert.equal(r.code, 1, r.stderr); // FAILED
    const envelope = JSON.parse(
      await Deno.readTextFile(`${lied.dir}/${out}/attestation.dsse.json`),
    );
    const results = JSON.parse(new TextDecoder().decode(decodeBase64(envelope.payload)))
      .predicate.results as { index: number; status: string; evidence?: unknown[] }[];
    const fail = results.find((x) => x.index === 2)!;
    assert.equal(fail.status, "FAIL");
    assert.ok((fail.evidence ?? []).length > 0, "a FAIL rests on what it recomputed");
  }
});

Deno.test("check --require-evidence: the weakest evidence any PASS rests on decides", async () => {
  const check = (...extra: string[]) =>
    runBitaudit(["check", plain.path, "--trust-root", f.trustRoot, ...extra]);
  const met = await check("--require-evidence", "derived-from-source");
  assert.equal(met.code, 0, met.stdout + met.stderr);
  assert.match(met.stdout, /^ok {3}policy --require-evidence derived-from-source: /m);
  const unmet = await check("--require-evidence", "measured-on-gpu");
  assert.equal(unmet.code, 1, unmet.stdout + unmet.stderr);
  assert.match(
    unmet.stdout,
    /^FAIL policy --require-evidence measured-on-gpu: the attested weakest evidence a PASS rests on is derived-from-source$/m,
  );
  const bad = await check("--require-evidence", "rumour");
  assertCliCode(bad.stderr, "USAGE_POLICY");
});
