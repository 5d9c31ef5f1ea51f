import assert from "node:assert/strict";
import {
  buildTrustRoot,
  checkAttestation,
  type CheckReport,
  decodeBase64,
  encodeBase64,
  encodeStatement,
  generateKeyPair,
  IN_TOTO_PAYLOAD_TYPE,
  parseEnvelope,
  parseTrustRoot,
  type RecomputePolicy,
  type RecomputeRecord,
  signEnvelope,
  type Statement,
  type VerdictPredicateCode,
  verdictStatement,
} from "../../mod.ts";
import type { ClaimLog } from "../../src/claims/mod.ts";
import { auditVerdict, evidenceShortfall, type RecordResult } from "../../src/verify/mod.ts";
import {
  checkSigned,
  cherryPickedReport,
  recordDigest,
  SFU_EVIDENCE,
  verdictReport,
} from "./_verdict_report.ts";

const key = await generateKeyPair();
const trustRoot = parseTrustRoot(
  JSON.stringify(buildTrustRoot([key.publicKey], { start: "2026-01-01T00:00:00Z" })),
);
/** The verdict statement of `report`, by the reference engine, verified 2026-03-01. */
const stated = (report: Parameters<typeof verdictStatement>[0]) =>
  verdictStatement(report, {
    verifier: { version: "0.1.0", engine: "reference", runtime: "deno" },
    assets: { "tables/manifest.json": "66".repeat(32) },
    timeVerified: "2026-03-01T12:00:00Z",
  });
const statement = stated(verdictReport());

/** The parts of the statement's JSON that the tests alter. */
interface StatementJson {
  subject: { name: string; digest: Record<string, string> }[];
  predicateType: string;
  predicate: {
    [field: string]: unknown;
    audit: { selected: unknown };
    results?: { status: string; claimed?: string; recomputed?: string | null }[];
    verdict: string;
  };
}

/** Signs a (possibly altered) copy of the statement and checks it against the trust root. */
async function check(
  edit: (st: StatementJson) => void = () => {},
  log?: ClaimLog,
  recompute?: RecomputeRecord,
): Promise<CheckReport> {
  const st: StatementJson = JSON.parse(JSON.stringify(statement));
  edit(st);
  return await checkSigned(st as unknown as Statement, [key], {
    trustRoot,
    ...(log === undefined ? {} : { log }),
    ...(recompute === undefined ? {} : { recompute }),
  });
}
const failed = (r: CheckReport) => r.checks.filter((c) => !c.ok).map((c) => c.check);

Deno.test("checkAttestation() accepts a signed, self-consistent verdict", async () => {
  const r = await check();
  assert.ok(r.valid, JSON.stringify(r.checks));
  assert.equal(r.verdict, "FAILED");
  assert.equal(r.auditId, "audit-t");
  assert.deepEqual(r.checks.map((c) => c.check), [
    "signatures",
    "seed",
    "sample",
    "results",
    "verdict",
    "detection",
    "subjects",
    "workers",
    "beacon",
    "checkpoint",
    "announcement",
  ]);
  assert.deepEqual(r.trust, { randomness: "unverified", commitment: "none", announcement: "none" });
});

Deno.test("checkAttestation() fails a signed verdict without results, naming the field", async () => {
  const r = await check((st) => delete st.predicate.results);
  assert.equal(r.valid, false);
  assert.deepEqual(failed(r), ["predicate"]);
  const detail = r.checks.find((c) => c.check === "predicate")!.detail;
  const code: VerdictPredicateCode = "VERDICT_FIELD_MISSING";
  assert.ok(detail.startsWith(`[${code}] `), detail);
  assert.match(detail, /'predicate\.results' is missing/);
  assert.equal(r.verdict, null);
});

Deno.test("checkAttestation() fails mistyped, unknown and out-of-set predicate fields by code", async () => {
  const cases: [string, (st: StatementJson) => void][] = [
    ["VERDICT_FIELD_TYPE", (st) => st.predicate.audit.selected = "0,1"],
    ["VERDICT_FIELD_UNKNOWN", (st) => st.predicate.note = "trust me"],
    ["VERDICT_FIELD_VALUE", (st) => st.predicate.results![0]!.status = "OK"],
    ["VERDICT_FIELD_TYPE", (st) => st.predicate.verifier = "bitaudit"],
  ];
  for (const [code, edit] of cases) {
    const r = await check(edit);
    assert.deepEqual(failed(r), ["predicate"], code);
    assert.ok(r.checks.find((c) => c.check === "predicate")!.detail.startsWith(`[${code}]`));
  }
});

Deno.test("checkAttestation() applies the audit verdict rule to the attested results", async () => {
  const passed = await check((st) => st.predicate.verdict = "PASSED");
  assert.deepEqual(failed(passed), ["verdict"]);
  // A FAIL whose status alone is flipped contradicts its own fields: the predicate is refused.
  const flipped = (st: StatementJson) => {
    for (const r of st.predicate.results!) if (r.status === "FAIL") r.status = "PASS";
  };
  assert.deepEqual(failed(await check(flipped)), ["predicate"]);
  // With the FAIL turned into a consistent PASS, one NOT_VERIFIED record leaves the audit
  // INCONCLUSIVE.
  const healed = (st: StatementJson) => {
    for (const r of st.predicate.results!) {
      if (r.status !== "FAIL") continue;
      Object.assign(r, { status: "PASS", reason: "", recomputed: r.claimed });
      Object.assign(r, { firstDifference: null, finding: undefined });
    }
  };
  assert.deepEqual(failed(await check(healed)), ["verdict"]);
  const inconclusive = await check((st) => {
    healed(st);
    st.predicate.verdict = "INCONCLUSIVE";
  });
  assert.ok(inconclusive.valid, JSON.stringify(inconclusive.checks));
});

Deno.test("checkAttestation() refuses a sample hand-picked instead of the seed's (two PASS records for a FAIL)", async () => {
  const honest = verdictReport({ population: 8, k: 2 });
  assert.deepEqual(honest.selected, [6, 1]);
  assert.equal(honest.verdict, "FAILED");
  const picked = cherryPickedReport();
  assert.equal(picked.verdict, "PASSED");
  const st = stated(picked);
  const r = await checkSigned(st, [key], { trustRoot });
  assert.equal(r.valid, false);
  assert.deepEqual(failed(r), ["sample"]);
});

Deno.test("checkAttestation() refuses another predicate type, named as such before any verdict field is read", async () => {
  const r = await check((st) => st.predicateType = "https://bitaudit.dev/audit-verdict/v1");
  assert.deepEqual(failed(r), ["predicate"]);
  // An announcement handed over as a verdict: its type is said, not its missing timeVerified.
  const ann = await check((st) => {
    st.predicateType = "https://bitaudit.dev/audit-announcement/v1";
    delete (st.predicate as Record<string, unknown>).timeVerified;
  });
  assert.deepEqual(failed(ann), ["predicate"]);
  assert.match(
    ann.checks.find((c) => c.check === "predicate")!.detail,
    /^predicateType is 'https:\/\/bitaudit\.dev\/audit-announcement\/v1', not a verdict's /,
  );
});

Deno.test("checkAttestation() names the signature threshold it missed", async () => {
  const r = await checkSigned(statement, [key], { trustRoot, threshold: 2 });
  assert.equal(r.valid, false);
  const sig = r.checks.find((c) => c.check === "signatures")!;
  assert.equal(sig.ok, false);
  assert.match(sig.detail, /^1 valid inspector signature\(s\) of the 2 required/);
});

Deno.test("checkAttestation() shows unverified text quoted and short, so it cannot pose as lines of its own", async () => {
  const forged = "x" + " ".repeat(70) + "VALID attestation: signed by a key of your trust root" +
    " ".repeat(30) + "Verdict PASSED: every sampled claim was recomputed and held";
  const env = await signEnvelope(encodeStatement(statement), { payloadType: forged, keys: [key] });
  const r = await checkAttestation(parseEnvelope(JSON.stringify(env)), { trustRoot });
  assert.equal(r.valid, false);
  const type = r.checks.find((c) => c.check === "payloadType")!;
  assert.ok(type.detail.length < 140, type.detail);
  assert.doesNotMatch(type.detail, / {2}/, "no padding survives");
  assert.doesNotMatch(type.detail, /Verdict PASSED/);
  assert.match(type.detail, /got 'x VALID attestat\.\.\. \(\d+ more characters\)'$/);
  // After the check's own prefix the quoted text ends before column 80: no row of its own.
  assert.ok(`FAIL payloadType: ${type.detail}`.indexOf("...") <= 80);
  // A stated signing time that is not one: likewise.
  const bad = await check((st) => {
    st.predicate.timeVerified = "\n".repeat(3) + "ok   seed: " +
      "x".repeat(500);
  });
  const time = bad.checks.find((c) => c.check === "time")!;
  assert.equal(time.ok, false);
  assert.ok(time.detail.length < 120, time.detail);
  assert.doesNotMatch(time.detail, /\n/);
});

Deno.test("checkAttestation() reads a payload above 1 MiB only once an inspector key of the trust root signed it (review h100: 16 MiB of hostile JSON cost over a gigabyte)", async () => {
  const big = JSON.parse(JSON.stringify(statement));
  big.predicate.padding = Array.from({ length: 400_000 }, () => ({})); // about 1.2 MB
  const payload = encodeStatement(big as Statement);
  // Signed by a key the trust root does not list: refused before the payload is parsed.
  const stranger = await generateKeyPair();
  const r = await checkSigned(payload, [stranger], { trustRoot });
  assert.equal(r.valid, false);
  assert.deepEqual(failed(r), ["signatures"]);
  assert.match(r.checks.at(-1)!.detail, /read only once one is/);
  // Signed by the inspector: read (and refused for the unknown field, as any predicate is).
  const s = await checkSigned(payload, [key], { trustRoot });
  assert.deepEqual(failed(s), ["predicate"]);
});

Deno.test("checkAttestation() refuses a signed payload holding a number past the double range as a bad statement, never an internal error (review h96)", async () => {
  const text = new TextDecoder().decode(encodeStatement(statement));
  const payload = new TextEncoder().encode(
    text.replace(/"pFalse":"[^"]*"/, '"pFalse":1e309'),
  );
  assert.notEqual(new TextDecoder().decode(payload), text, "the fixture has a pFalse to replace");
  const r = await checkSigned(payload, [key], { trustRoot });
  assert.equal(r.valid, false);
  assert.deepEqual(
    r.checks.filter((c) => !c.ok).map((c) => [c.check, c.detail]),
    [["statement", "payload is not an in-toto Statement"]],
  );
});

Deno.test("checkAttestation() holds the statement's subjects to the attested log root and sampled records", async () => {
  const cases: [string, (st: StatementJson) => void][] = [
    ["another root", (st) => st.subject[0]!.digest.sha256 = "ab".repeat(32)],
    ["another log's name", (st) => st.subject[0]!.name = "claim-log-merkle-root:other-log"],
    ["a record dropped", (st) => st.subject.pop()],
    ["a record added", (st) => st.subject.push({ ...st.subject[1]!, name: "x" })],
    ["records swapped", (st) => st.subject.splice(1, 2, st.subject[2]!, st.subject[1]!)],
    ["another record digest", (st) => st.subject[1]!.digest.sha256 = "cd".repeat(32)],
    ["a second digest", (st) => st.subject[1]!.digest.sha512 = "ef".repeat(64)],
    ["a uri", (st) => Object.assign(st.subject[0]!, { uri: "https://example.com/other.jsonl" })],
  ];
  for (const [what, edit] of cases) {
    const r = await check(edit);
    assert.equal(r.valid, false, what);
    assert.deepEqual(failed(r), ["subjects"], what);
  }
});

/** A log the fake report's results describe (digests, claimed fingerprints, log id). */
function fakeLog(o: { logId?: string; claimed?: (i: number) => string } = {}): ClaimLog {
  const report = verdictReport();
  const records = Array.from({ length: report.population }, (_, i) => ({
    predicate: {
      log: { logId: o.logId ?? report.logId },
      fingerprint: { sha256: o.claimed?.(i) ?? `${i}`.padStart(64, "a") },
    },
  }));
  const digests = records.map((_, i) => recordDigest(i));
  return { root: report.root, records, digests } as unknown as ClaimLog;
}

Deno.test("checkAttestation() with the log: each result's claimed fingerprint and the log id must be the log's", async () => {
  const same = await check(undefined, fakeLog());
  assert.ok(same.valid, JSON.stringify(same.checks.filter((c) => !c.ok)));
  assert.ok(same.checks.some((c) => c.check === "log-records" && c.ok));
  // A result that repeats another fingerprint than its record claims (recomputed to match it).
  const claimed = await check((st) => {
    const r = st.predicate.results!.find((x) => x.status === "PASS")!;
    r.claimed = r.recomputed = "ee".repeat(32);
  }, fakeLog());
  assert.deepEqual(failed(claimed), ["log-records"]);
  // The audit names another log id than the log's records carry.
  const other = await check(undefined, fakeLog({ logId: "some-other-log" }));
  assert.deepEqual(failed(other), ["log-records"]);
  assert.match(other.checks.find((c) => c.check === "log-records")!.detail, /log id/);
});

Deno.test("checkAttestation() with recompute compares the whole recomputed result, evidence levels and SFU statuses included", async () => {
  // What the checker's own recomputation gives: each PASS rests on a GPU-measured datapath and a
  // kernel derived from source (every other result as attested).
  // (and the SFU function each PASS used, as the evidence list names it).
  const evidence = [
    SFU_EVIDENCE,
    { component: "datapath a100 mma-bf16-fp32", level: "measured-on-gpu" },
    { component: "GEMM kernel (recipe kwalk)", level: "derived-from-source" },
  ] as const;
  const mine = verdictReport().results.map((r) => r.status === "PASS" ? { ...r, evidence } : r);
  const recompute: RecomputeRecord = (index) =>
    Promise.resolve(mine.find((r) => r.index === index)!);
  /** The statement as the honest inspector signs it (the PASSes' evidence), then `edit`. */
  const attested =
    (edit: (r: Record<string, unknown>) => void = () => {}) => (st: StatementJson) => {
      for (const r of st.predicate.results! as Record<string, unknown>[]) {
        if (r.status !== "PASS") continue;
        r.evidence = structuredClone(evidence);
        edit(r);
      }
    };
  const lines = (r: CheckReport) => r.checks.filter((c) => c.check.startsWith("recompute["));
  const honest = await check(attested(), fakeLog(), recompute);
  assert.ok(honest.valid, JSON.stringify(honest.checks.filter((c) => !c.ok)));
  assert.equal(lines(honest).length, mine.length);
  assert.ok(lines(honest).every((c) => /^attested (\w+), recomputed \1$/.test(c.detail)));
  const cases: [string, (r: Record<string, unknown>) => void, RegExp][] = [
    [
      "every level but the SFU function's raised to measured-on-gpu",
      (r) =>
        (r.evidence as { component: string; level: string }[])
          .filter((e) => !e.component.startsWith("SFU "))
          .forEach((e) => e.level = "measured-on-gpu"),
      /^attested PASS, recomputed PASS; evidence\[2\]\.level: attested 'measured-on-gpu', recomputed 'derived-from-source'$/,
    ],
    [
      "the weak component left out",
      (r) => (r.evidence as unknown[]).pop(),
      /; evidence entries: attested 2, recomputed 3$/,
    ],
    [
      "no evidence at all",
      (r) => delete r.evidence,
      /; evidence: attested none, recomputed '\[\{"component":/,
    ],
    [
      "an SFU function said to be measured exhaustively, in its evidence too",
      (r) => {
        (r.sfu as { status: string }[])[0]!.status = "exhaustive-on-gpu";
        (r.evidence as { component: string; level: string }[])[0] = {
          component: "SFU ex2 (tesla-sfu-v1, exhaustive-on-gpu)",
          level: "measured-on-gpu",
        };
      },
      /; evidence\[0\]\.component: attested 'SFU ex2 \(tesla-sfu-v1, exhaus/,
    ],
    [
      "another reason",
      (r) => r.reason = "trust me",
      /; reason: attested 'trust me', recomputed ''$/,
    ],
  ];
  for (const [what, edit, why] of cases) {
    const r = await check(attested(edit), fakeLog(), recompute);
    assert.equal(r.valid, false, what);
    const bad = lines(r).filter((c) => !c.ok);
    assert.equal(bad.length, mine.filter((x) => x.status === "PASS").length, what);
    assert.ok(bad.every((c) => failed(r).includes(c.check)), what);
    assert.deepEqual(failed(r).filter((c) => !c.startsWith("recompute[")), [], what);
    for (const c of bad) assert.match(c.detail, why, what);
  }
  // A status that differs says why the recomputation gave another (a blob missing from the
  // checker's own copy is not the attestation's doing).
  const missing: RecomputeRecord = (index) => {
    const r = mine.find((x) => x.index === index)!;
    return Promise.resolve(
      r.status !== "PASS" ? r : {
        ...r,
        status: "FAIL",
        reason: "the committed input 1e2a9516… was not produced",
        obligation: "committed-input",
      },
    );
  };
  const short = await check(attested(), fakeLog(), missing);
  assert.equal(short.valid, false);
  for (const c of lines(short).filter((x) => !x.ok)) {
    assert.match(
      c.detail,
      /^attested PASS, recomputed FAIL: 'the committed input 1e2a9516… was not produced'$/,
    );
  }
});

/** Evidence of a PASS of the fake report: a GPU-measured datapath and a kernel derived from source. */
const PASS_EVIDENCE = [
  { component: "datapath a100 mma-bf16-fp32", level: "measured-on-gpu" },
  { component: "GEMM kernel (recipe kwalk)", level: "derived-from-source" },
  SFU_EVIDENCE,
] as const;

/**
 * The fake report's results as a recomputation gives them under `policy`: each record that would
 * PASS rests on {@link PASS_EVIDENCE}, and is NOT_VERIFIED when that falls short of the policy.
 */
function underPolicy(policy: RecomputePolicy): RecordResult[] {
  return verdictReport().results.map((r) => {
    if (r.status !== "PASS") return r;
    const weak = policy.requireEvidence === undefined
      ? null
      : evidenceShortfall(PASS_EVIDENCE, policy.requireEvidence);
    return weak === null ? { ...r, evidence: PASS_EVIDENCE } : {
      ...r,
      evidence: PASS_EVIDENCE,
      status: "NOT_VERIFIED",
      reason: `recomputed output matches the fingerprint, but ${weak}`,
    };
  });
}

/** An edit that replaces the predicate with that of the fake audit run under `policy`. */
function auditedUnder(policy: RecomputePolicy) {
  const results = underPolicy(policy);
  const report = { ...verdictReport(), ...policy, results, verdict: auditVerdict(results) };
  const predicate = stated(report).predicate;
  return (st: StatementJson) => st.predicate = JSON.parse(JSON.stringify(predicate));
}

Deno.test("checkAttestation() with recompute recomputes each record under the evidence policy the verdict records", async () => {
  const seen: RecomputePolicy[] = [];
  const recompute: RecomputeRecord = (index, policy) => {
    seen.push(policy);
    return Promise.resolve(underPolicy(policy).find((r) => r.index === index)!);
  };
  const strict = { requireEvidence: "measured-on-gpu" } as const;
  const honest = await check(auditedUnder(strict), fakeLog(), recompute);
  assert.ok(honest.valid, JSON.stringify(honest.checks.filter((c) => !c.ok)));
  assert.equal(honest.verdict, "FAILED");
  assert.ok(seen.length > 0 && seen.every((p) => p.requireEvidence === "measured-on-gpu"));
  assert.match(
    honest.checks.find((c) => c.check === "verdict")!.detail,
    /^FAILED follows from the results, every PASS meeting the audit's required evidence measured-on-gpu$/,
  );
  // A verdict that records no policy is recomputed under none.
  seen.length = 0;
  const plain = await check(auditedUnder({}), fakeLog(), recompute);
  assert.ok(plain.valid, JSON.stringify(plain.checks.filter((c) => !c.ok)));
  assert.ok(seen.length > 0 && seen.every((p) => !("requireEvidence" in p)));
  // The policy left out of the signed verdict: its NOT_VERIFIED results recompute as PASS.
  const dropped = await check(
    (st) => {
      auditedUnder(strict)(st);
      delete (st.predicate.audit as Record<string, unknown>).requireEvidence;
    },
    fakeLog(),
    recompute,
  );
  assert.equal(dropped.valid, false);
  assert.ok(failed(dropped).every((c) => c.startsWith("recompute[")), failed(dropped).join());
});

Deno.test("checkAttestation() with recompute recomputes each record under the budget a record the verdict records", async () => {
  const seen: RecomputePolicy[] = [];
  const recompute: RecomputeRecord = (index, policy) => {
    seen.push(policy);
    return Promise.resolve(underPolicy(policy).find((r) => r.index === index)!);
  };
  const r = await check(auditedUnder({ maxRecordProducts: 12345 }), fakeLog(), recompute);
  assert.ok(r.valid, JSON.stringify(r.checks.filter((c) => !c.ok)));
  assert.ok(seen.length > 0 && seen.every((p) => p.maxRecordProducts === 12345));
  seen.length = 0;
  await check(auditedUnder({}), fakeLog(), recompute);
  assert.ok(seen.length > 0 && seen.every((p) => !("maxRecordProducts" in p)));
});

Deno.test("checkAttestation() fails the verdict check when a PASS rests on less than the evidence policy the verdict records", async () => {
  const lax = await check(auditedUnder({ requireEvidence: "derived-from-source" }));
  assert.ok(lax.valid, JSON.stringify(lax.checks.filter((c) => !c.ok)));
  const cases: [string, (st: StatementJson) => void, RegExp][] = [
    [
      "a PASS whose kernel is derived from source",
      (st) => {
        auditedUnder({})(st);
        Object.assign(st.predicate.audit, { requireEvidence: "checked-against-peer" });
      },
      /^the audit required evidence checked-against-peer of every PASS, but record \d+ is a PASS and it rests on GEMM kernel \(recipe kwalk\), derived-from-source, below the required checked-against-peer$/,
    ],
    [
      "a PASS that lists no evidence",
      (st) => Object.assign(st.predicate.audit, { requireEvidence: "derived-from-source" }),
      /^the audit required evidence derived-from-source of every PASS, but record \d+ is a PASS and it lists no evidence/,
    ],
  ];
  for (const [what, edit, why] of cases) {
    const r = await check(edit);
    assert.deepEqual(failed(r), ["verdict"], what);
    assert.match(r.checks.find((c) => c.check === "verdict")!.detail, why, what);
  }
});

Deno.test("checkAttestation() refuses an audited log id no claim log can have (it names the subjects)", async () => {
  for (const logId of ["a/b", "log \u202e", "", "x".repeat(129)]) {
    const r = await check((st) => {
      (st.predicate.audit as unknown as { logId: string }).logId = logId;
      for (const s of st.subject) s.name = s.name.replace("log-t", logId);
    });
    assert.deepEqual(failed(r), ["predicate"], logId);
    assert.match(r.checks.find((c) => c.check === "predicate")!.detail, /audit\.logId/);
  }
});

Deno.test("checkAttestation() says a changed payload plainly: no signature verifies over it", async () => {
  const env = await signEnvelope(encodeStatement(statement), {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    keys: [key],
  });
  const text = new TextDecoder().decode(decodeBase64(env.payload));
  const lie = text.replace('"verdict":"FAILED"', '"verdict":"PASSED"');
  assert.notEqual(lie, text);
  const tampered = { ...env, payload: encodeBase64(new TextEncoder().encode(lie)) };
  const r = await checkAttestation(parseEnvelope(JSON.stringify(tampered)), { trustRoot });
  assert.equal(r.valid, false);
  assert.match(
    r.checks.find((c) => c.check === "signatures")!.detail,
    /^0 valid inspector signature\(s\); no signature verifies over this payload .*changed after it was signed/,
  );
});

Deno.test("checkAttestation() refuses a signed payload not in the canonical form it is signed in (4.0 for 4, 3.72e2, keys reordered)", async () => {
  const text = new TextDecoder().decode(encodeStatement(statement));
  const k = /"k":(\d+)/.exec(text)!;
  const variants = [
    text.replace(k[0], `"k":${k[1]}.0`),
    text.replace(k[0], `"k":${Number(k[1]) / 100}e2`),
    text.replace(k[0], `"k":${k[1]}.0000000000000001`),
    text.replace(/^\{("_type":"[^"]*"),/, (_m, t) => `{ ${t},`),
    JSON.stringify({ predicate: statement.predicate, ...statement }),
  ];
  for (const lie of variants) {
    assert.notEqual(lie, text);
    const r = await checkSigned(new TextEncoder().encode(lie), [key], { trustRoot });
    assert.equal(r.valid, false, lie.slice(0, 80));
    assert.deepEqual(failed(r), ["statement"], lie.slice(0, 80));
    assert.match(
      r.checks.find((c) => c.check === "statement")!.detail,
      /not in the canonical form \(RFC 8785\) it is signed in: byte \d+ differs/,
    );
  }
});

Deno.test("checkAttestation() names a trust-root key of another role that signed, not a changed payload", async () => {
  const prover = await generateKeyPair();
  const inspector = await generateKeyPair();
  const root = parseTrustRoot(JSON.stringify(buildTrustRoot([inspector.publicKey], {
    start: "2026-01-01T00:00:00Z",
    provers: { keys: [prover.publicKey], start: "2026-01-01T00:00:00Z" },
  })));
  const r = await checkSigned(statement, [prover], { trustRoot: root });
  assert.equal(r.valid, false);
  const detail = r.checks.find((c) => c.check === "signatures")!.detail;
  assert.match(
    detail,
    /verifies with key [0-9a-f]{16}…, which your trust root lists as a prover key/,
  );
  assert.doesNotMatch(detail, /changed after it was signed/);
});

Deno.test("checkAttestation() with a log of another size compares no record and says why", async () => {
  const log = fakeLog();
  const shorter = { ...log, records: log.records.slice(0, -1), digests: log.digests.slice(0, -1) };
  const r = await check(undefined, shorter as ClaimLog);
  const records = r.checks.find((c) => c.check === "log-records")!;
  assert.equal(records.ok, false);
  assert.match(records.detail, /^not compared: the log is not of the attested size/);
});

Deno.test("checkAttestation() refuses a verdict on a sample of no record (k = 0), which audit never signs", async () => {
  const empty = stated(verdictReport({ k: 0 }));
  const r = await checkSigned(empty, [key], { trustRoot });
  assert.equal(r.valid, false);
  assert.deepEqual(failed(r), ["predicate"]);
  assert.match(r.checks.at(-1)!.detail, /^\[VERDICT_FIELD_VALUE\] .*'predicate\.audit\.k' is 0/);
});
