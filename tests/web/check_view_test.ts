import assert from "node:assert/strict";
import {
  buildTrustRoot,
  checkAttestation,
  encodeStatement,
  generateKeyPair,
  IN_TOTO_PAYLOAD_TYPE,
  keyId,
  parseEnvelope,
  parseTrustRoot,
  signEnvelope,
  type Statement,
  verdictStatement,
} from "../../mod.ts";
import {
  type CheckDone,
  checkView,
  runCheck,
  trustSentences,
  verdictHeadline,
  verdictMeaning,
  VERIFIED_ASSUMPTION,
} from "../../src/web/mod.ts";
import { parseVerdictPredicate, sigstoreBundle } from "../../src/attest/mod.ts";
import { escapeForTerminal } from "../../src/escape_text.ts";
import { SFU_EVIDENCE, verdictReport } from "../attest/_verdict_report.ts";

const key = await generateKeyPair();
const trustRootText = JSON.stringify(
  buildTrustRoot([key.publicKey], { start: "2026-01-01T00:00:00Z" }),
);
const report = verdictReport();

async function attestation(runtime = "deno", of = report): Promise<string> {
  const statement = verdictStatement(of, {
    verifier: { version: "0.1.0", engine: "reference", runtime },
    assets: { "tables/manifest.json": "66".repeat(32) },
    timeVerified: "2026-03-01T12:00:00Z",
  });
  const env = await signEnvelope(encodeStatement(statement as Statement), {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    keys: [key],
  });
  return JSON.stringify(env);
}

Deno.test("runCheck() reports exactly the checks checkAttestation() reports for the same files", async () => {
  const text = await attestation();
  const now = new Date("2026-03-02T00:00:00Z");
  const outcome = await runCheck({ attestation: text, trustRoot: trustRootText }, { now });
  const direct = await checkAttestation(parseEnvelope(text), {
    trustRoot: parseTrustRoot(trustRootText),
    now,
  });
  assert.equal(outcome.kind, "checked");
  if (outcome.kind !== "checked") return;
  assert.deepEqual(outcome.report, direct);
  assert.equal(outcome.predicate?.verdict, report.verdict);
});

Deno.test("checkView() says the page did not compare the verdict's assets with a release manifest", async () => {
  const v = checkView(
    await runCheck({ attestation: await attestation(), trustRoot: trustRootText }),
  );
  assert.equal(v.tone, "valid");
  // The page holds no manifest (it is one of the release's assets): no `assets` check, said so.
  assert.ok(!v.checks.some((c) => c.check === "assets"));
  assert.ok(
    v.summary.includes(
      "The 1 asset the verdict names (under the digests) were not compared with a bitaudit " +
        "release's manifest: this page holds none. `bitaudit check` of the same release compares " +
        "them and fails a verdict computed with other assets.",
    ),
    v.summary.join("\n"),
  );
});

Deno.test("checkView() puts the verdict and its meaning first for a valid attestation", async () => {
  const v = checkView(
    await runCheck({ attestation: await attestation(), trustRoot: trustRootText }),
  );
  assert.equal(v.tone, "valid");
  assert.equal(
    v.headline,
    "VALID attestation: signed by a key of your trust root, every check made here passed (its assets are compared by bitaudit check only)",
  );
  assert.deepEqual(v.verdict, verdictHeadline(report.verdict));
  assert.match(v.summary[1]!, new RegExp(`^Verdict ${report.verdict}: 1 of the 8 sampled`));
  assert.match(v.summary.join(" "), /Sampled 8 of the 8 records of claim log "log-t"/);
  assert.deepEqual(v.kinds, [{ kind: "unknown", PASS: 6, FAIL: 1, NOT_VERIFIED: 1 }]);
  // The signed figure counts all 8 (1.000000); the one NOT_VERIFIED record catches nothing, and
  // 7/8 is written rounded down after the error bound (0.874999).
  assert.ok(
    v.summary.some((s) =>
      s.startsWith("1 of the 8 sampled records was NOT_VERIFIED and could catch nothing") &&
      s.includes(
        "if 1 of the 8 records were false (1 %, rounded up to whole records), the 7 verified records catch at least one with probability 0.874999",
      )
    ),
    v.summary.join("\n"),
  );
  const fail = v.results.find((r) => r.status === "FAIL")!;
  assert.equal(fail.firstDifference, "element 4: claimed 0x3f49, recomputed 0x3f4a");
  assert.ok(v.digests.some((d) => d.label === "log root" && d.value === "11".repeat(32)));
  assert.ok(v.results.every((r) => r.evidence === "none"), "no result lists evidence");
});

Deno.test("checkView() shows each result's weakest evidence and the components at it, as the CLI reports do", async () => {
  // Review h90: the page showed no evidence, so a PASS resting on source-derived components read
  // as well as one measured on a GPU.
  const evidence = [
    { component: "datapath a100 mma-bf16-fp32", level: "measured-on-gpu" },
    { component: "GEMM kernel (recipe kwalk)", level: "derived-from-source" },
    { component: "decoder layer (qwen3)", level: "derived-from-source" },
    SFU_EVIDENCE, // each PASS used ex2: its evidence lists it
  ] as const;
  const of = {
    ...report,
    results: report.results.map((r) => r.status === "PASS" ? { ...r, evidence } : r),
  };
  const v = checkView(
    await runCheck({ attestation: await attestation("deno", of), trustRoot: trustRootText }),
  );
  for (const r of v.results) {
    assert.equal(
      r.evidence,
      r.status === "PASS"
        ? "derived-from-source: GEMM kernel (recipe kwalk); decoder layer (qwen3); SFU ex2 (tesla-sfu-v1, spot-checked)"
        : "none",
      `result ${r.index}`,
    );
  }
});

Deno.test("checkView() shows a FAIL result's evidence too: a falsified record caught was recomputed, as the demo's FAIL rows are", async () => {
  // The demo's caught records carry the evidence of their recomputation (report.md lists it);
  // the page's column had been tested on PASS rows only.
  const evidence = [
    { component: "GEMM kernels (catalog demo-qwen3-tiny-a100)", level: "derived-from-source" },
    { component: "checkpoint load: 1 F32 tensor(s) cast to BF16", level: "derived-from-source" },
  ] as const;
  const of = {
    ...report,
    results: report.results.map((r) =>
      r.status === "NOT_VERIFIED"
        ? r
        : { ...r, evidence: r.sfu === undefined ? evidence : [...evidence, SFU_EVIDENCE] }
    ),
  };
  const v = checkView(
    await runCheck({ attestation: await attestation("deno", of), trustRoot: trustRootText }),
  );
  const fail = v.results.find((r) => r.status === "FAIL")!;
  assert.equal(
    fail.evidence,
    "derived-from-source: GEMM kernels (catalog demo-qwen3-tiny-a100); checkpoint load: 1 F32 " +
      "tensor(s) cast to BF16",
  );
  assert.equal(fail.firstDifference, "element 4: claimed 0x3f49, recomputed 0x3f4a");
});

Deno.test("verdictMeaning() names the worker keys of a sharded audit and how many the inspector recomputed again", () => {
  const results = [
    { status: "PASS", worker: "a".repeat(64) },
    { status: "PASS", worker: "b".repeat(64) },
    { status: "PASS", worker: "a".repeat(64) },
  ];
  const none = verdictMeaning({ verdict: "PASSED", results, workers: { reverified: [] } });
  assert.match(none, /^Verdict PASSED: each of the 3 sampled records was recomputed and matched/);
  assert.ok(!none.includes("recomputed by the inspector and"), none);
  assert.match(
    none,
    /Sharded audit: 3 of them by worker key\(s\) a{16}, b{16} whose signed results the inspector merged, 0 of those recomputed again by the inspector itself\.$/,
  );
  // A merge where one planned item came back from no worker: nobody computed it.
  const partial = verdictMeaning({
    verdict: "INCONCLUSIVE",
    results: [...results.slice(0, 2), { status: "NOT_VERIFIED" }],
    workers: { reverified: [7] },
  });
  assert.match(
    partial,
    /2 of them by worker key\(s\).*1 of those recomputed again.*; 1 with no result from any worker \(NOT_VERIFIED\)\.$/,
  );
  assert.ok(!partial.includes("by the inspector."), partial);
  // A single-process audit records the inspector's own key as the worker: not a sharded audit.
  const own = verdictMeaning(
    { verdict: "PASSED", results: [results[0]!, results[2]!], workers: { reverified: [] } },
    { signers: ["a".repeat(64)] },
  );
  assert.equal(
    own,
    "Verdict PASSED: each of the 2 sampled records was recomputed by the inspector and matched the prover's claim bit for bit.",
  );
  const both = verdictMeaning({ verdict: "PASSED", results, workers: { reverified: [] } }, {
    signers: ["b".repeat(64)],
  });
  assert.match(both, /Sharded audit: 2 of them by worker key\(s\) a{16} .*; 1 by the inspector\.$/);
  assert.match(
    verdictMeaning({ verdict: "PASSED", results: [{ status: "PASS" }] }),
    /recomputed by the inspector and matched/,
  );
});

Deno.test("checkView() counts a signature entry repeated three times as one key", async () => {
  const env = JSON.parse(await attestation());
  env.signatures = [env.signatures[0], env.signatures[0], env.signatures[0]];
  const v = checkView(
    await runCheck({ attestation: JSON.stringify(env), trustRoot: trustRootText }),
  );
  assert.equal(v.tone, "valid");
  const signed = v.summary.find((s) => s.startsWith("Signed by"));
  assert.match(signed ?? "", /^Signed by 1 inspector key\(s\) \([0-9a-f]{16}\) on /);
});

Deno.test("checkView() shows a payload changed after signing as INVALID without its contents", async () => {
  const env = JSON.parse(await attestation());
  const payload = atob(env.payload).replace('"verdict":"FAILED"', '"verdict":"PASSED"');
  assert.notEqual(payload, atob(env.payload));
  env.payload = btoa(payload);
  const v = checkView(
    await runCheck({ attestation: JSON.stringify(env), trustRoot: trustRootText }),
  );
  assert.equal(v.tone, "invalid");
  assert.equal(v.headline, "INVALID attestation");
  assert.deepEqual(v.checks.filter((c) => !c.ok).map((c) => c.check), ["signatures"]);
  assert.deepEqual([v.facts, v.results, v.digests], [[], [], []]);
});

Deno.test("checkView() names the input that cannot be read, with its code", async () => {
  const bad = checkView(await runCheck({ attestation: await attestation(), trustRoot: "{" }));
  assert.equal(bad.tone, "refused");
  assert.equal(bad.headline, "Cannot read the trust root");
  assert.match(bad.summary[0]!, /^\[BAD_TRUST_ROOT\] Cannot/);
  const log = await runCheck({ attestation: "{}", trustRoot: trustRootText, log: "" });
  assert.equal(log.kind === "refused" && log.input, "attestation");
});

Deno.test("checkView() says the page's own failures as such: an internal error, or no WebCrypto outside a secure context, is no finding about the files", () => {
  const refused = (code: string) =>
    checkView({ kind: "refused", input: "attestation", code, message: "m" }).headline;
  assert.equal(
    refused("INTERNAL"),
    "Internal error of the checker page (not a finding about your files)",
  );
  assert.match(
    refused("INSECURE_CONTEXT"),
    /^Cannot check here: open this page from a file, localhost or https:/,
  );
  assert.equal(refused("BAD_ENVELOPE"), "Cannot read the attestation");
});

Deno.test("checkView() keeps the signing time the inspector's stated one when a timestamp token verified, and gives the token's time beside it", async () => {
  const done = await runCheck({ attestation: await attestation(), trustRoot: trustRootText });
  assert.ok(done.kind === "checked");
  const plain = checkView(done);
  assert.match(plain.summary.join(" "), /on \S+ \(the inspector's stated time\)\./);
  // As a verified token leaves it (its check first, its time on the report): the stated time is
  // still only stated.
  const stamped = checkView({
    ...done,
    timestamped: true,
    report: {
      ...done.report,
      tokenTime: "2026-11-29T12:00:00Z",
      checks: [
        {
          check: "timestamp",
          ok: true,
          detail: "RFC 3161 token: signature 0 existed at 2026-11-29T12:00:00Z",
        },
        ...done.report.checks,
      ],
    },
  });
  assert.match(
    stamped.summary.join(" "),
    /\(the inspector's stated time; a timestamp token shows the signature existed at 2026-11-29T12:00:00Z\)/,
  );
  assert.match(
    stamped.facts.find((f) => f.label === "Verified at")!.value,
    /\(stated by the inspector\)$/,
  );
});

Deno.test("checkView() carries markup in a signed field as plain text for the page to show", async () => {
  const runtime = '<img src=x onerror="alert(1)">\u001b[32mVALID';
  const v = checkView(
    await runCheck({ attestation: await attestation(runtime), trustRoot: trustRootText }),
  );
  assert.equal(v.tone, "valid");
  // Markup stays text for the DOM; the ESC is shown as the CLI prints it.
  assert.ok(
    v.facts.find((f) => f.label === "Verifier")?.value.endsWith(
      '<img src=x onerror="alert(1)">\\u{1b}[32mVALID',
    ),
  );
});

Deno.test("verdictMeaning() says what each verdict means with its counts", () => {
  const r = (status: string) => ({ status });
  assert.match(
    verdictMeaning({ verdict: "PASSED", results: [r("PASS"), r("PASS")] }),
    /^Verdict PASSED: each of the 2 sampled records was recomputed .* bit for bit\.$/,
  );
  assert.match(
    verdictMeaning({ verdict: "INCONCLUSIVE", results: [r("PASS"), r("NOT_VERIFIED")] }),
    /^Verdict INCONCLUSIVE: no sampled record failed, but 1 of the 2 could not be verified/,
  );
  const differs = { status: "FAIL", finding: "fingerprint" };
  assert.match(
    verdictMeaning({ verdict: "FAILED", results: [differs, r("NOT_VERIFIED"), differs] }),
    /^Verdict FAILED: 2 of the 3 sampled records did not match/,
  );
});

Deno.test("verdictMeaning() words each FAIL by what it found: only a recomputation that differed 'did not match when recomputed'", () => {
  // Review h123: a FAIL for a missing committed input (recomputed: null) read as a mismatch.
  const fail = (finding: string) => ({ status: "FAIL", finding });
  const pass = { status: "PASS" };
  const input = verdictMeaning({ verdict: "FAILED", results: [fail("committed-input"), pass] });
  assert.equal(
    input,
    "Verdict FAILED: 1 of the 2 sampled records could not be recomputed: an input the prover committed to was missing or did not match its digest (the prover must produce each one); the claim log contains false claims.",
  );
  assert.doesNotMatch(input, /did not match what the prover claimed/);
  const contradiction = verdictMeaning({ verdict: "FAILED", results: [fail("contradiction")] });
  assert.match(contradiction, /^Verdict FAILED: 1 of the 1 sampled records contradicted the stack/);
  assert.doesNotMatch(contradiction, /when recomputed/);
  for (const f of ["fingerprint", "layer-chain", "greedy-token"]) {
    assert.match(
      verdictMeaning({ verdict: "FAILED", results: [fail(f)] }),
      /1 of the 1 sampled records did not match what the prover claimed when recomputed;/,
    );
  }
  assert.equal(
    verdictMeaning({
      verdict: "FAILED",
      results: [fail("fingerprint"), fail("committed-input"), fail("layer-chain"), pass],
    }),
    "Verdict FAILED: 3 of the 4 sampled records failed (2 did not match what the prover claimed when recomputed; 1 could not be recomputed: an input the prover committed to was missing or did not match its digest (the prover must produce each one)); the claim log contains false claims.",
  );
  // A FAIL stating no finding (no verifier's: the predicate parser refuses it) claims no kind.
  assert.match(
    verdictMeaning({ verdict: "FAILED", results: [{ status: "FAIL" }, pass] }),
    /^Verdict FAILED: 1 of the 2 sampled records failed; /,
  );
});

Deno.test("trustSentences() names a verified drand round, a signed checkpoint and an announcement", () => {
  const s = trustSentences({
    round: 123,
    drand: {
      chainHash: "52".repeat(32),
      scheme: "bls-unchained-g1-rfc9380",
      publicKey: "83".repeat(96),
      period: 3,
      genesisTime: 1692803367,
      groupHash: "f4".repeat(32),
      beaconId: "quicknet",
      round: 123,
      roundTime: "2023-08-23T15:15:33Z",
      signature: "ab".repeat(48),
    },
    checkpoint: {
      note: "n",
      origin: "example.com/log",
      treeSize: 300,
      rootHash: "11".repeat(32),
      signedAt: "2026-03-01T00:00:00Z",
      proverKeyId: "cd".repeat(32),
    },
    announcement: {},
  });
  assert.match(
    s[0]!,
    /^The randomness is drand "quicknet" round 123, published 2023-08-23T15:15:33Z/,
  );
  assert.match(s[1]!, /checkpoint "example\.com\/log", 300 records\) with key cdcdcdcdcdcdcdcd at/);
  // Without a token the order before the round is the inspector's word, never "before the round".
  assert.match(s[2]!, /announced at the inspector's stated time only \(no timestamp: /);
  assert.doesNotMatch(s[2]!, /before the round,|signed before/);
  // A token verified against the trust root's authorities vouches for the order; one read at
  // audit time, from any authority, states it (report.html says so).
  const ann = { round: 123, announcement: { timestamp: "AAAA" } };
  const stamped = trustSentences(ann, { tsaChecked: true })[2]!;
  assert.match(stamped, /announced and signed before the round, with an RFC 3161 timestamp/);
  const unchecked = trustSentences(ann)[2]!;
  assert.doesNotMatch(unchecked, /signed before the round|vouches/);
  assert.match(unchecked, /did not check against a pinned one.*`bitaudit check --trust-root`/);
  assert.match(trustSentences({ round: 9 })[1]!, /^No signed checkpoint/);
});

Deno.test("verdictHeadline() gives each verdict its own tone, apart from the attestation's", () => {
  assert.deepEqual(
    ["PASSED", "FAILED", "INCONCLUSIVE"].map((v) => verdictHeadline(v).tone),
    ["passed", "failed", "inconclusive"],
  );
  assert.equal(verdictHeadline("FAILED").text, "Verdict FAILED: the claim log holds false claims");
});

/** Bidi overrides and isolates, C0 and C1 controls, DEL and a line separator (issue 25, item 8). */
const HOSTILE = "\u202e\u2066\u2067\u2068\u2069\u0000\u0007\u001b[2J\u0085\u009b\u007f\u2028";
const SHOWN = escapeForTerminal(HOSTILE);
// deno-lint-ignore no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Appends {@link HOSTILE} to every string of a JSON-like value, map keys included. */
function hostile<T>(v: T): T {
  if (typeof v === "string") return `${v}${HOSTILE}` as T;
  if (Array.isArray(v)) return v.map(hostile) as T;
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, hostile(x)])) as T;
  }
  return v;
}

/** Every string in a view, with its path. */
function strings(v: unknown, path = "view"): [string, string][] {
  if (typeof v === "string") return [[path, v]];
  if (typeof v !== "object" || v === null) return [];
  return Object.entries(v).flatMap(([k, x]) => strings(x, `${path}.${k}`));
}

Deno.test("checkView() escapes bidi overrides and control characters in every field it shows, as the CLI", async () => {
  const env = JSON.parse(await attestation());
  const p = parseVerdictPredicate(JSON.parse(atob(env.payload)).predicate);
  const audit = {
    ...p.audit,
    beacon: {
      ...p.audit.beacon,
      drand: { beaconId: "quicknet", round: 7, roundTime: "t", chainHash: "c" },
    },
    checkpoint: { origin: "o", treeSize: 8, signedAt: "s", proverKeyId: "cd".repeat(32) },
    announcement: {},
  };
  const predicate = hostile({ ...p, audit, verdict: p.verdict });
  const checks = [{ check: "seed", ok: true, detail: "d" }, {
    check: "beacon",
    ok: true,
    detail: "b",
  }];
  const signatures = [{ keyid: "k", valid: true, verifiedBy: "ab".repeat(32) }];
  const report = hostile({ valid: true, verdict: "FAILED", auditId: "a", signatures, checks });
  const done: CheckDone = {
    kind: "checked",
    report: { ...report, valid: true },
    predicate: { ...predicate, verdict: p.verdict } as typeof p,
    log: null,
    format: "dsse",
    timestamped: false,
    hints: [],
  };
  const invalid: CheckDone = {
    ...done,
    report: {
      ...done.report,
      valid: false,
      checks: hostile([{ check: "signatures", ok: false, detail: "x" }]),
    },
    predicate: null,
    hints: hostile(["hint"]),
  };
  const refused = {
    kind: "refused",
    input: "attestation",
    code: "BAD_ENVELOPE",
    message: `m${HOSTILE}`,
  } as const;
  for (const v of [checkView(done), checkView(invalid), checkView(refused)]) {
    for (const [path, s] of strings(v)) assert.doesNotMatch(s, UNSAFE, path);
  }
  const v = checkView(done);
  // Each field that carries signed text shows it escaped: facts, the plain sentences (signer,
  // log id, drand beacon, checkpoint origin), checks, per-record rows and digests.
  for (const f of v.facts.filter((f) => f.label !== "Sampled")) { // "Sampled": k, a number
    assert.ok(f.value.includes(SHOWN), `fact ${f.label}: ${f.value}`);
  }
  for (const part of ["Signed by 1 inspector key", "claim log", "drand", "checkpoint"]) {
    const s = v.summary.find((x) => x.includes(part) && x.includes(SHOWN));
    assert.ok(s !== undefined, `summary sentence with ${part}`);
  }
  for (const c of v.checks) assert.ok(c.check.includes(SHOWN) && c.detail.includes(SHOWN));
  for (const r of v.results) {
    assert.ok(r.record.includes(SHOWN), `result ${r.index}`);
    if (r.status === "FAIL") {
      assert.ok(r.reason.includes(SHOWN) && r.firstDifference.includes(SHOWN));
    }
  }
  for (const d of v.digests) assert.ok(`${d.label} ${d.value}`.includes(SHOWN), d.label);
  assert.ok(v.detection.every((d) => d.value.includes(SHOWN)), "detection rows");
  const bad = checkView(invalid);
  assert.ok(bad.summary.some((s) => s.startsWith(`signatures${SHOWN}: x${SHOWN}`)));
  assert.ok(bad.summary.includes(`hint${SHOWN}`));
  assert.equal(checkView(refused).summary[0], `[BAD_ENVELOPE] m${SHOWN}`);
});

Deno.test("runCheck() reads a Sigstore bundle as bitaudit writes it, with the envelope's checks", async () => {
  const text = await attestation();
  const now = new Date("2026-03-02T00:00:00Z");
  const bundle = JSON.stringify(sigstoreBundle(parseEnvelope(text)));
  const [a, b] = await Promise.all(
    [text, bundle].map((t) => runCheck({ attestation: t, trustRoot: trustRootText }, { now })),
  );
  assert.ok(a?.kind === "checked" && b?.kind === "checked");
  assert.deepEqual(b.report, a.report);
  assert.deepEqual([a.format, b.format], ["dsse", "sigstore-bundle"]);
  assert.match(
    checkView(b).summary[0]!,
    /^The signature is genuine \(read from a Sigstore bundle\)/,
  );
  const odd = JSON.stringify({ ...JSON.parse(bundle), extra: 1 });
  const refused = await runCheck({ attestation: odd, trustRoot: trustRootText });
  assert.ok(refused.kind === "refused" && refused.code === "BAD_ENVELOPE");
});

Deno.test("runCheck() checks a given RFC 3161 token: one that does not verify makes the attestation INVALID", async () => {
  const r = await runCheck({
    attestation: await attestation(),
    trustRoot: trustRootText,
    timestamp: new Uint8Array([0x30, 0x00]),
  });
  assert.ok(r.kind === "checked" && r.timestamped);
  assert.equal(r.report.valid, false);
  assert.deepEqual(r.report.checks.map((c) => [c.check, c.ok]), [["timestamp", false]]);
});

Deno.test("checkView() does not call a prover key's validity window tampering: it names the dates", () => {
  const done: CheckDone = {
    kind: "checked",
    report: {
      valid: false,
      verdict: "PASSED",
      auditId: "a",
      signatures: [],
      checks: [
        { check: "signatures", ok: true, detail: "1 valid inspector signature(s)" },
        {
          check: "checkpoint",
          ok: false,
          detail: "prover key not valid when it signed (not yet valid)",
        },
      ],
    },
    predicate: null,
    log: null,
    format: "dsse",
    timestamped: false,
    hints: [
      "Your trust root dates prover key cdcd… from 2026-01-01T00:00:00Z (--prover-valid-from).",
    ],
  };
  const v = checkView(done);
  assert.equal(v.tone, "invalid");
  assert.ok(v.summary.includes(done.hints[0]!));
  assert.ok(
    !v.summary.some((s) => s.includes("changed after it was signed")),
    v.summary.join("\n"),
  );
  assert.ok(
    v.summary.some((s) =>
      s.startsWith("The inspector's signature holds, but the prover's checkpoint")
    ),
  );
});

Deno.test("checkView() says a failed time check as a clock or dating problem, not as tampering (review h100)", async () => {
  const now = new Date("2026-03-01T10:00:00Z"); // two hours before the stated time
  const v = checkView(
    await runCheck({ attestation: await attestation(), trustRoot: trustRootText }, { now }),
  );
  assert.equal(v.tone, "invalid");
  assert.deepEqual(v.checks.filter((c) => !c.ok).map((c) => c.check), ["time"]);
  const text = v.summary.join("\n");
  assert.doesNotMatch(text, /changed after it was signed/);
  assert.match(text, /later than this computer's clock allows: the signatures were not judged/);
});

Deno.test("checkView() says INVALID, not tampering, for a verdict whose results a prover key of the trust root computed (review h148)", async () => {
  const prover = await generateKeyPair();
  const trustRoot = JSON.stringify(
    buildTrustRoot([key.publicKey], {
      start: "2026-01-01T00:00:00Z",
      provers: { keys: [prover.publicKey], start: "2026-01-01T00:00:00Z" },
    }),
  );
  const statement = verdictStatement(report, {
    verifier: { version: "0.1.0", engine: "reference", runtime: "deno" },
    assets: { "tables/manifest.json": "66".repeat(32) },
    timeVerified: "2026-03-01T12:00:00Z",
    workers: {
      byResult: report.results.map(() => keyId(prover.publicKey)),
      keys: [prover.publicKey],
      reverified: [],
    },
  });
  const env = await signEnvelope(encodeStatement(statement as Statement), {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    keys: [key],
  });
  const v = checkView(
    await runCheck({ attestation: JSON.stringify(env), trustRoot }, {
      now: new Date("2026-03-02T00:00:00Z"),
    }),
  );
  assert.equal(v.tone, "invalid");
  assert.deepEqual(v.checks.filter((c) => !c.ok).map((c) => c.check), ["workers"]);
  const text = v.summary.join("\n");
  assert.doesNotMatch(text, /changed after it was signed/);
  assert.match(
    text,
    /computed by a key your trust root does not let stand behind them: a prover key/,
  );
});

Deno.test("checkView() says what the verified records catch before the signed figure, which counts every sampled record (review h181)", async () => {
  // The page showed "caught with probability 1.000000" for the 1 % level of an audit whose
  // sample of 8 held a NOT_VERIFIED record: the 7 verified catch the 1 false record with 7/8.
  const some = checkView(
    await runCheck({ attestation: await attestation(), trustRoot: trustRootText }),
  );
  const one = some.detection.find((d) => d.label === "1 % of records false (1 of 8)")!;
  assert.equal(
    one.value,
    "caught with probability 0.874999 by the 7 verified records (hypergeometric); the signed figure, 1.000000 (binomial 0.077255), counts all 8 sampled, 1 of them NOT_VERIFIED",
  );
  // What the verified figures assume is said once, after the levels (review h184), in the
  // detection sentence's words.
  assert.deepEqual(some.detection.filter((d) => /assume/.test(d.value)), [{
    label: "assumption",
    value:
      "The figures by the 7 verified records assume a false record is as likely as any other to be one this verifier can check.",
  }]);
  assert.equal(some.detection.at(-1)!.label, "assumption");
  // The summary's detection sentence, away from these rows, says it too.
  assert.ok(
    some.summary.some((s) => s.endsWith(`probability 0.874999, assuming ${VERIFIED_ASSUMPTION}.`)),
    some.summary.join("\n"),
  );
  // No record verified: the page says it caught nothing, never the signed figure on its own.
  const base = verdictReport();
  const results = base.results.map(({ finding: _f, sfu: _s, ...r }) => ({
    ...r,
    status: "NOT_VERIFIED" as const,
    reason: "the record's budget is over the audit's",
    recomputed: null,
    firstDifference: null,
  }));
  const none = checkView(
    await runCheck({
      attestation: await attestation("deno", { ...base, results, verdict: "INCONCLUSIVE" }),
      trustRoot: trustRootText,
    }),
  );
  assert.equal(none.tone, "valid", none.summary.join("\n"));
  assert.equal(none.detection.length, 3);
  for (const d of none.detection) {
    assert.match(
      d.value,
      /^caught by no record: none of the 8 sampled was verified \(the signed figure, \d\.\d{6} \(binomial \d\.\d{6}\), counts all 8 sampled\)$/,
    );
  }
  // All verified: the signed figure is what the sample catches, and is said so.
  const all = { ...base, results: base.results.filter((r) => r.status !== "NOT_VERIFIED") };
  const full = checkView(
    await runCheck({
      attestation: await attestation("deno", {
        ...all,
        selected: all.results.map((r) => r.index),
        detection: { ...base.detection, k: all.results.length },
      }),
      trustRoot: trustRootText,
    }),
  );
  assert.ok(
    full.detection.every((d) => d.value.endsWith("by the 7 sampled records, all verified")),
    JSON.stringify(full.detection),
  );
});
