/**
 * Attacks on the sharded audit (`audit plan`, `audit work`, `audit merge`) by whoever handles the
 * workers' results files: a flipped status, a forged PASS, unsigned results, a foreign plan's
 * results replayed, a key the inspector never named, two workers that disagree, a signature moved
 * onto other bytes, a worker that lies consistently (caught only by `--reverify`), and a signed
 * attestation whose results contradict themselves (`check` says INVALID). Every refused merge
 * exits 2 with one `error [CODE]: ...` line and writes nothing: its output folder never exists.
 */
import assert from "node:assert/strict";
import { makeAuditFixture } from "../cli/_audit_fixture.ts";
import { type CliRun, runBitaudit } from "../cli/_run.ts";
import { bareLine, payloadOf, signedLine } from "../cli/_signed_results.ts";
import { assertCliCode } from "../_assert_code.ts";
import {
  decodeBase64,
  encodeBase64,
  encodeStatement,
  IN_TOTO_PAYLOAD_TYPE,
  signEnvelope,
} from "../../src/attest/mod.ts";
import { canonicalJson } from "../../src/claims/mod.ts";
import type { CliErrorCode } from "../../src/cli/exit_codes.ts";
import { generateKeys } from "../../src/cli/commands/key.ts";
import { loadSigningKey } from "../../src/cli/load_inputs.ts";

const TIME = "2026-06-01T12:00:00Z";
const K = 16;
const dec = new TextDecoder();
const f = await makeAuditFixture({
  records: 14,
  blocks: 2,
  falsify: [{ seq: 5, kind: "fingerprint", bit: 3 }],
});
// Plans lie beside claims.jsonl: `audit work` reads the log from the plan's folder.
const PLAN = `${f.dir}/log/plan.json`;
const OLD_PLAN = `${f.dir}/log/plan-old.json`;
const RESULTS = [0, 1].map((i) => `${f.dir}/results-${i}.jsonl`);
const OLD_RESULTS = `${f.dir}/results-old.jsonl`;

await Promise.all([_plan(PLAN, "ab".repeat(32)), _plan(OLD_PLAN, "cd".repeat(32))]);
await Promise.all([
  ...RESULTS.map((out, i) => _work(PLAN, `${i}/2`, out)),
  _work(OLD_PLAN, "0/4", OLD_RESULTS),
]);
/** Every honest signed line of the plan, in shard order. */
const LINES = (await Promise.all(RESULTS.map((p) => Deno.readTextFile(p))))
  .join("").trimEnd().split("\n");
assert.equal(LINES.length, K, "every item in exactly one shard");
const FAIL_LINE = LINES.find((l) => payloadOf(l).result.status === "FAIL")!;
assert.equal(payloadOf(FAIL_LINE).result.index, 5, "the falsified record is the one FAIL");
const PASS_LINES = LINES.filter((l) => l !== FAIL_LINE);
const [WORKER_B, STRANGER] = await Promise.all([
  generateKeys(`${f.dir}/worker-b`),
  generateKeys(`${f.dir}/stranger`),
]);

async function _plan(out: string, randomness: string): Promise<void> {
  const r = await runBitaudit([
    "audit",
    "plan",
    "--log",
    f.log,
    "--randomness",
    randomness,
    "--round",
    "7",
    "--k",
    String(K),
    "--key",
    f.key,
    "--out",
    out,
  ]);
  assert.equal(r.code, 0, r.stderr);
}

async function _work(plan: string, shard: string, out: string): Promise<void> {
  const r = await runBitaudit([
    "audit",
    "work",
    "--plan",
    plan,
    "--shard",
    shard,
    "--out",
    out,
    "--key",
    f.worker.key,
    "--threads",
    "1",
  ]);
  assert.equal(r.code, 0, r.stderr);
}

/** Writes result lines into a new file of the fixture folder. */
async function _file(name: string, lines: readonly string[]): Promise<string> {
  const path = `${f.dir}/${name}.jsonl`;
  await Deno.writeTextFile(path, lines.map((l) => `${l}\n`).join(""));
  return path;
}

/** The output folder of a merge named `name`. */
function _out(name: string): string {
  return `${f.dir}/merged-${name}`;
}

/** Runs `audit merge` of PLAN into `_out(name)`. */
async function _merge(
  name: string,
  files: readonly string[],
  options: { pubs?: readonly string[]; extra?: readonly string[] } = {},
): Promise<CliRun> {
  return await runBitaudit([
    "audit",
    "merge",
    "--plan",
    PLAN,
    ...files,
    "--key",
    f.key,
    "--worker-pub",
    ...(options.pubs ?? [f.worker.pub]),
    "--out",
    _out(name),
    "--time",
    TIME,
    "--json",
    ...(options.extra ?? []),
  ]);
}

/** Asserts a refusal: exit 2, one `error [code]: ` line, and no output folder. */
async function _refused(run: CliRun, code: CliErrorCode, out: string): Promise<string> {
  assert.equal(run.code, 2, `exit ${run.code}\n${run.stderr}${run.stdout}`);
  const lines = run.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, run.stderr);
  assertCliCode(lines[0]!, code);
  assert.ok(lines[0]!.startsWith(`error [${code}]: `), run.stderr);
  assert.equal(run.stdout, "", "a refused merge prints no verdict");
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(run.stderr, /\u001b/, "raw escape reached the terminal");
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound, `${out} was written`);
  return lines[0]!;
}

/** A line with `line`'s envelope (and signature) but another payload, in canonical form. */
function _withPayload(line: string, result: unknown): string {
  const env = JSON.parse(line);
  return dec.decode(canonicalJson({ ...env, payload: encodeBase64(canonicalJson(result)) }));
}

/** The FAIL result with fields changed (`undefined` removes a field). */
function _failWith(result: Record<string, unknown>): Record<string, unknown> {
  const v = payloadOf(FAIL_LINE);
  const r: Record<string, unknown> = { ...v.result, ...result };
  for (const [k, x] of Object.entries(result)) if (x === undefined) delete r[k];
  return { ...v, result: r };
}

let good: Promise<CliRun> | undefined;
/** The honest merge (memoized: the sanity test and the `check` attack both use it). */
function _goodMerge(): Promise<CliRun> {
  return good ??= _merge("good", RESULTS);
}

Deno.test("sanity: merging the honest results signs a FAILED verdict that `check` finds VALID", async () => {
  const m = await _goodMerge();
  assert.equal(m.code, 1, m.stderr);
  assert.equal(JSON.parse(m.stdout).verdict, "FAILED");
  const attestation = `${_out("good")}/attestation.dsse.json`;
  assert.ok((await Deno.stat(attestation)).isFile);
  const c = await runBitaudit(["check", attestation, "--trust-root", f.trustRoot]);
  assert.equal(c.code, 0, c.stderr + c.stdout);
  assert.match(c.stdout, /^VALID attestation: signed by a key of your trust root/m);
  // Re-verifying half of the honest results here finds them all equal (--reverify as a fraction).
  const half = await _merge("good-reverified", RESULTS, {
    extra: ["--reverify", "0.5", "--log", f.log],
  });
  assert.equal(half.code, 1, half.stderr);
  assert.equal(JSON.parse(half.stderr.trim()).reverified, K / 2);
});

Deno.test("flipped status: FAIL -> PASS under the old signature is RESULT_SIGNATURE, re-signed RESULT_INVALID", async () => {
  const flipped = _failWith({ status: "PASS" });
  const kept = await _file("flipped-kept-sig", [...PASS_LINES, _withPayload(FAIL_LINE, flipped)]);
  const line = await _refused(
    await _merge("flipped-kept", [kept]),
    "RESULT_SIGNATURE",
    _out("flipped-kept"),
  );
  assert.match(line, new RegExp(f.worker.keyid.slice(0, 16)));
  // Re-signed by the accepted worker key it still contradicts itself: a PASS stating a finding,
  // or (finding removed) a PASS whose recomputed fingerprint is not the claimed one.
  for (
    const [name, forged, why] of [
      ["flipped-resigned", flipped, /contradicts itself: a PASS states a finding/],
      [
        "flipped-clean",
        _failWith({ status: "PASS", finding: undefined }),
        /contradicts itself: a PASS whose recomputed fingerprint is not the claimed/,
      ],
    ] as const
  ) {
    const file = await _file(name, [...PASS_LINES, await signedLine(forged, f.worker.key)]);
    const refused = await _refused(await _merge(name, [file]), "RESULT_INVALID", _out(name));
    assert.match(refused, why);
  }
});

Deno.test("forged PASS signed by an accepted worker: steps missing are RESULT_INCONSISTENT, a failed step RESULT_INVALID", async () => {
  const steps = payloadOf(FAIL_LINE).result.steps;
  const allOk = steps.map((s) => ({ ...s, ok: true }));
  const pass = (s: unknown) =>
    _failWith({
      status: "PASS",
      finding: undefined,
      recomputed: payloadOf(FAIL_LINE).result.claimed,
      reason: "recomputed fingerprint equals the claimed",
      steps: s,
    });
  const cases: [string, unknown, CliErrorCode, RegExp][] = [
    // Consistent on its own; only its workload kind (gemm) shows what is missing.
    ["forged-pass-no-steps", [], "RESULT_INCONSISTENT", /a PASS without its 'inclusion' step/],
    [
      "forged-pass-no-kernel",
      allOk.filter((s) => s.step !== "kernel"),
      "RESULT_INCONSISTENT",
      /a PASS without its 'kernel' step/,
    ],
    // The worker's own trace still says the comparison failed: refused before the merge.
    ["forged-pass-failed-step", steps, "RESULT_INVALID", /a PASS whose step 'compare' failed/],
  ];
  for (const [name, s, code, why] of cases) {
    const file = await _file(name, [...PASS_LINES, await signedLine(pass(s), f.worker.key)]);
    const line = await _refused(await _merge(name, [file]), code, _out(name));
    assert.match(line, why);
  }
});

Deno.test("what computed a result is not a worker's word: an invented engine is RESULT_INVALID, another manifest MERGE_VERSION (another build), foreign asset digests MERGE_ASSET_CONFLICT", async () => {
  /** Every line re-signed by the accepted worker key after `edit`. */
  const all = (edit: (v: Record<string, unknown>) => void) =>
    Promise.all(LINES.map((line) => {
      const v = structuredClone(payloadOf(line)) as unknown as Record<string, unknown>;
      edit(v);
      return signedLine(v as never, f.worker.key);
    }));
  const engine = await _file(
    "engine",
    await all((v) => (v.verifier as Record<string, unknown>).engine = "nvidia-h100-sxm-silicon"),
  );
  assert.match(
    await _refused(await _merge("engine", [engine]), "RESULT_INVALID", _out("engine")),
    /'verifier\.engine' must be one of 'wasm', 'reference'/,
  );
  const cases: [string, (a: Record<string, string>) => void, CliErrorCode, RegExp][] = [
    [
      "manifest",
      (a) => a["tables/manifest.json"] = "ab".repeat(32),
      "MERGE_VERSION",
      // The manifest names the code too: another build of the version (review h99).
      /computed by another build \(version '[^']+', manifest abababababababab…\)/,
    ],
    [
      "invented",
      (a) => a["tables/ground-truth/measured-on-h100.json"] = "cd".repeat(32),
      "MERGE_ASSET_CONFLICT",
      /which this inspector does not hold/,
    ],
  ];
  for (const [name, edit, code, why] of cases) {
    const file = await _file(
      `asset-${name}`,
      await all((v) => edit(v.assets as Record<string, string>)),
    );
    const out = _out(`asset-${name}`);
    assert.match(
      await _refused(await _merge(`asset-${name}`, [file]), code, out),
      why,
    );
  }
});

Deno.test("the same key given twice to audit merge is USAGE_KEYS before any work", async () => {
  const out = _out("twice");
  const run = await runBitaudit([
    "audit",
    "merge",
    "--plan",
    PLAN,
    ...RESULTS,
    "--key",
    f.key,
    f.key,
    "--worker-pub",
    f.worker.pub,
    "--out",
    out,
    "--time",
    TIME,
  ]);
  await _refused(run, "USAGE_KEYS", out);
});

Deno.test("unsigned results: a bare item result line is RESULT_INVALID (not signed)", async () => {
  const file = await _file("bare", [...PASS_LINES, bareLine(FAIL_LINE)]);
  const line = await _refused(await _merge("bare", [file]), "RESULT_INVALID", _out("bare"));
  assert.match(line, /not signed/);
});

Deno.test("results of a foreign plan (an old plan's results replayed) are MERGE_FOREIGN", async () => {
  const old = (await Deno.readTextFile(OLD_RESULTS)).trimEnd().split("\n");
  assert.ok(old.length > 0);
  assert.notEqual(payloadOf(old[0]!).plan, payloadOf(LINES[0]!).plan);
  const alone = await _merge("foreign", [OLD_RESULTS]);
  await _refused(alone, "MERGE_FOREIGN", _out("foreign"));
  const mixed = await _merge("foreign-mixed", [...RESULTS, OLD_RESULTS]);
  const line = await _refused(mixed, "MERGE_FOREIGN", _out("foreign-mixed"));
  assert.match(line, /not an item of this plan/);
});

Deno.test("a result of the same item under another plan digest is MERGE_FOREIGN in every file order, never a duplicate", async () => {
  // Another plan with the same items (its evidence re-indented): only the plan digest differs.
  const payload = { ...payloadOf(FAIL_LINE), plan: "ee".repeat(32) };
  const forged = await _file("other-plan", [await signedLine(payload, f.worker.key)]);
  for (
    const [name, files] of [["other-plan-last", [...RESULTS, forged]], ["other-plan-first", [
      forged,
      ...RESULTS,
    ]]] as const
  ) {
    const line = await _refused(await _merge(name, [...files]), "MERGE_FOREIGN", _out(name));
    assert.match(line, /not an item of this plan/);
  }
});

Deno.test("results signed by a worker key not given with --worker-pub are RESULT_UNKNOWN_WORKER", async () => {
  const stolen = await signedLine(payloadOf(FAIL_LINE), STRANGER.privateKey);
  const file = await _file("stranger", [...PASS_LINES, stolen]);
  const line = await _refused(
    await _merge("stranger", [file]),
    "RESULT_UNKNOWN_WORKER",
    _out("stranger"),
  );
  assert.match(line, new RegExp(STRANGER.keyid.slice(0, 16)));
  // Honest results are refused too when their worker's key is not the one named.
  const unnamed = await _merge("unnamed", RESULTS, { pubs: [STRANGER.publicKey] });
  const other = await _refused(unnamed, "RESULT_UNKNOWN_WORKER", _out("unnamed"));
  assert.match(other, new RegExp(f.worker.keyid.slice(0, 16)));
});

Deno.test("two accepted workers disagreeing on an item is MERGE_CONFLICT naming both keys", async () => {
  const v = payloadOf(FAIL_LINE);
  const disagree = { ...v, result: { ...v.result, reason: `${v.result.reason} (other worker)` } };
  const file = await _file("worker-b", [await signedLine(disagree, WORKER_B.privateKey)]);
  const m = await _merge("conflict", [...RESULTS, file], {
    pubs: [f.worker.pub, WORKER_B.publicKey],
  });
  const line = await _refused(m, "MERGE_CONFLICT", _out("conflict"));
  assert.match(line, new RegExp(f.worker.keyid.slice(0, 16)));
  assert.match(line, new RegExp(WORKER_B.keyid.slice(0, 16)));
  assert.match(line, /record 5\b/);
});

Deno.test("a signature moved onto another line's payload is RESULT_SIGNATURE", async () => {
  const a = JSON.parse(PASS_LINES[0]!);
  const b = JSON.parse(FAIL_LINE);
  const moved = dec.decode(canonicalJson({ ...b, signatures: a.signatures }));
  assert.notEqual(moved, FAIL_LINE);
  const file = await _file("moved-sig", [...PASS_LINES, moved]);
  await _refused(await _merge("moved-sig", [file]), "RESULT_SIGNATURE", _out("moved-sig"));
});

Deno.test("a worker lying consistently is accepted by a plain merge and caught by --reverify (MERGE_REVERIFY_MISMATCH)", async () => {
  const steps = payloadOf(FAIL_LINE).result.steps;
  const support = steps.findIndex((s) => s.step === "support");
  const notVerified = _failWith({
    status: "NOT_VERIFIED",
    finding: undefined,
    obligation: undefined,
    recomputed: null,
    evidence: undefined,
    firstDifference: null,
    reason: "kernel not supported on this worker",
    steps: [...steps.slice(0, support), { ...steps[support]!, ok: false, detail: "unsupported" }],
  });
  const passed = _failWith({
    status: "PASS",
    finding: undefined,
    recomputed: payloadOf(FAIL_LINE).result.claimed,
    reason: "recomputed fingerprint equals the claimed",
    steps: steps.map((s) => ({ ...s, ok: true })),
  });
  const lies: [string, unknown, number, string][] = [
    ["lie-not-verified", notVerified, 3, "INCONCLUSIVE"],
    ["lie-pass", passed, 0, "PASSED"],
  ];
  for (const [name, lie, exit, verdict] of lies) {
    const line = await signedLine(lie, f.worker.key);
    const all = await _file(name, [...PASS_LINES, line]);
    const plain = await _merge(name, [all]);
    assert.equal(plain.code, exit, plain.stderr);
    assert.equal(JSON.parse(plain.stdout).verdict, verdict, "the lie is signed without --reverify");
    // The lie alone is the one returned result, so any --reverify share recomputes it.
    const alone = await _file(`${name}-alone`, [line]);
    for (const share of ["1", "0.5"]) {
      const out = `${name}-reverify-${share}`;
      const m = await _merge(out, [alone], { extra: ["--reverify", share, "--log", f.log] });
      const refused = await _refused(m, "MERGE_REVERIFY_MISMATCH", _out(out));
      assert.match(refused, new RegExp(`worker ${f.worker.keyid.slice(0, 16)}`));
      assert.match(refused, /record 5\b/);
    }
  }
});

/**
 * Every line re-signed by the accepted worker key with each evidence level raised, and each SFU
 * function's status with it (a result's SFU list and its evidence list agree, or it is refused
 * as contradicting itself).
 */
function _raisedEvidence(): Promise<string[]> {
  return Promise.all(LINES.map((line) => {
    const v = structuredClone(payloadOf(line));
    for (const u of v.result.sfu ?? []) (u as { status: string }).status = "exhaustive-on-gpu";
    for (const e of v.result.evidence ?? []) {
      const raised = e as { component: string; level: string };
      raised.level = "measured-on-gpu";
      raised.component = raised.component
        .replace(/^(SFU \S+ \(\S+, )[a-z-]+\)$/, "$1exhaustive-on-gpu)");
    }
    return signedLine(v, f.worker.key);
  }));
}

Deno.test("a worker raising its results' evidence levels: check --recompute --require-evidence names the difference and fails", async () => {
  const file = await _file("raised-evidence", await _raisedEvidence());
  // The results are self-consistent: a plain merge signs them as the worker's word.
  const m = await _merge("raised-evidence", [file]);
  assert.equal(m.code, 1, m.stderr);
  const attestation = `${_out("raised-evidence")}/attestation.dsse.json`;
  const policy = ["--require-evidence", "measured-on-gpu"];
  const read = await runBitaudit(["check", attestation, "--trust-root", f.trustRoot, ...policy]);
  assert.equal(read.code, 0, "read alone, the attestation meets the policy: its worker says so");
  // The checker's recomputation yields the evidence itself and compares it with the attested.
  const c = await runBitaudit([
    "check",
    attestation,
    "--trust-root",
    f.trustRoot,
    "--log",
    f.log,
    "--recompute",
    "--threads",
    "1",
    ...policy,
  ]);
  assert.equal(c.code, 1, c.stderr + c.stdout);
  assert.match(
    c.stdout,
    /^FAIL recompute\[\d+\]: attested PASS, recomputed PASS; evidence\[\d+\]\.level: attested 'measured-on-gpu', recomputed '(derived-from-source|checked-against-peer)'$/m,
  );
  assert.match(c.stdout, /^INVALID attestation$/m);
  assert.doesNotMatch(c.stdout, /^policy met$/m);
});

Deno.test("a worker raising only its results' evidence levels is caught by --reverify, which names the level (MERGE_REVERIFY_MISMATCH)", async () => {
  const raised = await _raisedEvidence();
  // One result whose status and fingerprints are honest: only its evidence is the worker's lie.
  const line = raised.find((l) => payloadOf(l).result.status === "PASS")!;
  const index = payloadOf(line).result.index;
  const alone = await _file("raised-evidence-alone", [line]);
  const m = await _merge("raised-evidence-reverify", [alone], {
    extra: ["--reverify", "1", "--log", f.log],
  });
  const refused = await _refused(m, "MERGE_REVERIFY_MISMATCH", _out("raised-evidence-reverify"));
  assert.match(refused, new RegExp(`record ${index}\\b.*worker ${f.worker.keyid.slice(0, 16)}`));
  assert.match(
    refused,
    /returned PASS with other bytes \(evidence\[\d+\]\.level: worker 'measured-on-gpu', here '(derived-from-source|checked-against-peer)'\)/,
  );
});

Deno.test("check: a re-signed attestation whose results contradict themselves is INVALID (exit 1)", async () => {
  const m = await _goodMerge();
  assert.equal(m.code, 1, m.stderr);
  const path = `${_out("good")}/attestation.dsse.json`;
  const envelope = JSON.parse(await Deno.readTextFile(path));
  const inspector = await loadSigningKey(f.key);
  const forge = async (name: string, edit: (r: Record<string, unknown>) => void) => {
    const statement = JSON.parse(dec.decode(decodeBase64(envelope.payload)));
    const fail = statement.predicate.results.find((r: { status: string }) => r.status === "FAIL");
    edit(fail);
    const env = await signEnvelope(encodeStatement(statement), {
      payloadType: IN_TOTO_PAYLOAD_TYPE,
      keys: [inspector],
    });
    const file = `${f.dir}/${name}.dsse.json`;
    await Deno.writeTextFile(file, JSON.stringify(env, null, 2) + "\n");
    return await runBitaudit(["check", file, "--trust-root", f.trustRoot]);
  };
  // The forging itself breaks nothing: the statement re-signed unchanged is VALID.
  const same = await forge("resigned", () => {});
  assert.equal(same.code, 0, same.stderr + same.stdout);
  assert.match(same.stdout, /^VALID attestation: signed by a key of your trust root/m);
  const forgeries: [string, (r: Record<string, unknown>) => void, RegExp][] = [
    ["status-pass", (r) => (r.status = "PASS"), /contradicts itself: a PASS states a finding/],
    [
      "status-pass-clean",
      (r) => {
        r.status = "PASS";
        delete r.finding;
      },
      /contradicts itself: a PASS whose recomputed fingerprint is not the claimed/,
    ],
    ["fail-no-finding", (r) => delete r.finding, /contradicts itself: a FAIL states no finding/],
    [
      "unlisted-worker",
      (r) => (r.worker = "00".repeat(32)),
      /\.worker' is not a listed worker key/,
    ],
  ];
  for (const [name, edit, why] of forgeries) {
    const c = await forge(name, edit);
    assert.equal(c.code, 1, `${name}: exit ${c.code}\n${c.stderr}${c.stdout}`);
    // The inspector's signature is good: only the predicate's own contradiction makes it INVALID.
    assert.match(c.stdout, /^ok +signatures: 1 valid inspector signature/m, name);
    assert.match(c.stdout, /^FAIL predicate: \[VERDICT_FIELD_VALUE\] /m, name);
    assert.match(c.stdout, why, name);
    assert.match(c.stdout, /^INVALID attestation$/m, name);
    assert.doesNotMatch(c.stdout, /^VALID/m, name);
  }
});
