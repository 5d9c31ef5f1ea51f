/**
 * The verifier end to end through the CLI: audit exit codes, offline check, the tamper matrix,
 * malformed inputs, and interoperability of the attestation with a standard DSSE/Ed25519 check.
 */
import assert from "node:assert/strict";
import { auditArgs, type AuditFixture, makeAuditFixture } from "./_audit_fixture.ts";
import { copyCheckout, runBitaudit } from "./_run.ts";
import { assertCliCode } from "../_assert_code.ts";
import type { CliErrorCode } from "../../src/cli/exit_codes.ts";
import type { VerdictPredicateCode } from "../../src/errors.ts";
import {
  decodePrivateKeyPem,
  encodeBase64,
  encodeStatement,
  publicKeyFromPrivate,
  signEnvelope,
} from "../../src/attest/mod.ts";

const honest = await makeAuditFixture({ records: 24, falsify: [] });
const lying = await makeAuditFixture({
  records: 24,
  falsify: [{ seq: 3, kind: "fingerprint", bit: 5 }, {
    seq: 11,
    kind: "sku",
    profile: "h100-sxm",
    catalog: "demo-small-transformer-h100-sxm",
  }],
});
const dec = new TextDecoder();
const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

async function audited(f: AuditFixture, name: string, k = 24): Promise<string> {
  const out = `${f.dir}/${name}`;
  const r = await runBitaudit(auditArgs(f, out, k));
  assert.ok([0, 1, 3].includes(r.code), r.stderr);
  return out;
}

Deno.test("audit exits 0 with PASSED when every sampled record recomputes bit for bit", async () => {
  const out = `${honest.dir}/pass`;
  const r = await runBitaudit([...auditArgs(honest, out, 10), "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.verdict, "PASSED");
  assert.equal(s.results.length, 10);
  assert.ok(s.results.every((x: { status: string }) => x.status === "PASS"));
  assert.match(await Deno.readTextFile(`${out}/report.md`), /# bitaudit audit report: PASSED/);
});

Deno.test("audit exits 1 with FAILED and names the falsified records", async () => {
  const r = await runBitaudit([...auditArgs(lying, `${lying.dir}/fail`, 24), "--json"]);
  assert.equal(r.code, 1, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.verdict, "FAILED");
  const failed = s.results.filter((x: { status: string }) => x.status === "FAIL").map((
    x: { index: number },
  ) => x.index);
  assert.deepEqual(failed.sort((a: number, b: number) => a - b), [3, 11]);
});

Deno.test("audit exits 1 FAILED when the prover did not produce a committed tensor (issue 19)", async () => {
  const f = await makeAuditFixture({ records: 6, falsify: [] });
  const record = JSON.parse((await Deno.readTextFile(f.log)).split("\n")[2]!);
  await Deno.remove(`${f.dir}/log/blobs/${record.predicate.workload.input.sha256}`);
  const r = await runBitaudit([...auditArgs(f, `${f.dir}/out`, 6), "--json"]);
  assert.equal(r.code, 1, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.verdict, "FAILED");
  const nv = s.results.find((x: { index: number }) => x.index === 2);
  assert.equal(nv.status, "FAIL");
  assert.match(nv.reason, /prover did not produce committed input: input tensor .* missing/);
});

Deno.test("check accepts the attestation offline, with the log and with full recomputation", async () => {
  const out = await audited(lying, "chk", 12);
  const att = `${out}/attestation.dsse.json`;
  for (const extra of [[], ["--log", lying.log], ["--log", lying.log, "--recompute"]]) {
    const r = await runBitaudit(["check", att, "--trust-root", lying.trustRoot, ...extra]);
    assert.equal(r.code, 0, `${extra.join(" ")}: ${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /^VALID attestation: signed by a key of your trust root/m);
    assert.match(r.stdout, /^Verdict FAILED: /m);
  }
});

Deno.test("the attestation verifies with WebCrypto Ed25519 over the DSSE PAE, given only the .pub file", async () => {
  const out = await audited(honest, "interop", 4);
  const env = JSON.parse(await Deno.readTextFile(`${out}/attestation.dsse.json`));
  const pem = await Deno.readTextFile(honest.pub);
  const der = b64(pem.replace(/-----[^-]+-----|\s/g, ""));
  const key = await crypto.subtle.importKey("spki", der, { name: "Ed25519" }, false, ["verify"]);
  const payload = b64(env.payload);
  const type = new TextEncoder().encode(env.payloadType);
  const pae = new Uint8Array([
    ...new TextEncoder().encode(`DSSEv1 ${type.length} `),
    ...type,
    ...new TextEncoder().encode(` ${payload.length} `),
    ...payload,
  ]);
  assert.equal(env.payloadType, "application/vnd.in-toto+json");
  assert.ok(await crypto.subtle.verify("Ed25519", key, b64(env.signatures[0].sig), pae));
  const st = JSON.parse(dec.decode(payload));
  assert.equal(st._type, "https://in-toto.io/Statement/v1");
  assert.equal(st.predicate.verdict, "PASSED");
});

Deno.test("tamper matrix: a modified envelope, signature, trust root or log is never accepted", async () => {
  const out = await audited(lying, "tamper", 8);
  const att = `${out}/attestation.dsse.json`;
  const env = JSON.parse(await Deno.readTextFile(att));
  const variants: [string, (e: typeof env) => void][] = [
    ["payload verdict", (e) => {
      const text = dec.decode(b64(e.payload)).replace('"FAILED"', '"PASSED"');
      e.payload = encodeBase64(new TextEncoder().encode(text));
    }],
    ["payload bit", (e) => {
      const p = b64(e.payload);
      p[100]! ^= 1;
      e.payload = encodeBase64(p);
    }],
    ["signature bit", (e) => {
      const s = b64(e.signatures[0].sig);
      s[10]! ^= 1;
      e.signatures[0].sig = encodeBase64(s);
    }],
    ["payloadType", (e) => e.payloadType = "application/json"],
    ["no signatures", (e) => e.signatures = []],
  ];
  for (const [name, mutate] of variants) {
    const e = structuredClone(env);
    mutate(e);
    const path = `${out}/${name.replace(/ /g, "_")}.json`;
    await Deno.writeTextFile(path, JSON.stringify(e));
    const r = await runBitaudit(["check", path, "--trust-root", lying.trustRoot]);
    assert.ok(r.code === 1 || r.code === 2, `${name}: exit ${r.code}`);
    assert.doesNotMatch(r.stdout, /^VALID attestation/m, name);
  }
  // keyid is an unauthenticated hint: changing it must not change the outcome.
  const hinted = structuredClone(env);
  hinted.signatures[0].keyid = "00".repeat(32);
  await Deno.writeTextFile(`${out}/keyid.json`, JSON.stringify(hinted));
  assert.equal(
    (await runBitaudit(["check", `${out}/keyid.json`, "--trust-root", lying.trustRoot])).code,
    0,
  );
  // Another inspector's trust root, and a revoked key.
  const other = await makeAuditFixture({ records: 2, falsify: [] });
  assert.equal((await runBitaudit(["check", att, "--trust-root", other.trustRoot])).code, 1);
  const root = JSON.parse(await Deno.readTextFile(lying.trustRoot));
  root.keys[0].revoked = { time: "2026-02-01T00:00:00Z", reason: "key compromise" };
  await Deno.writeTextFile(`${out}/revoked.json`, JSON.stringify(root));
  assert.equal((await runBitaudit(["check", att, "--trust-root", `${out}/revoked.json`])).code, 1);
  // A log that differs from the audited one.
  const lines = (await Deno.readTextFile(lying.log)).split("\n");
  await Deno.writeTextFile(`${out}/short.jsonl`, lines.slice(0, 20).join("\n") + "\n");
  const r = await runBitaudit([
    "check",
    att,
    "--trust-root",
    lying.trustRoot,
    "--log",
    `${out}/short.jsonl`,
  ]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /FAIL log-root: claim log root \w+… differs from the attested \w+…/);
});

Deno.test("check exits 1 naming the missing field when a validly signed verdict has no results", async () => {
  const out = await audited(honest, "noresults", 4);
  const env = JSON.parse(await Deno.readTextFile(`${out}/attestation.dsse.json`));
  const st = JSON.parse(dec.decode(b64(env.payload)));
  delete st.predicate.results;
  const privateKey = decodePrivateKeyPem(await Deno.readTextFile(honest.key));
  const signer = { privateKey, publicKey: await publicKeyFromPrivate(privateKey) };
  const resigned = await signEnvelope(encodeStatement(st), {
    payloadType: env.payloadType,
    keys: [signer],
  });
  const path = `${out}/no-results.dsse.json`;
  await Deno.writeTextFile(path, JSON.stringify(resigned));
  for (const extra of [[], ["--log", honest.log], ["--log", honest.log, "--recompute"]]) {
    const r = await runBitaudit(["check", path, "--trust-root", honest.trustRoot, ...extra]);
    const what = `${extra.join(" ")}: ${r.stdout}${r.stderr}`;
    assert.equal(r.code, 1, what);
    assert.equal(r.stderr, "", what);
    assert.match(r.stdout, /^ok {3}signatures: 1 valid/m, what);
    const code: VerdictPredicateCode = "VERDICT_FIELD_MISSING";
    const line =
      `FAIL predicate: [${code}] Cannot read verdict predicate: 'predicate.results' is missing`;
    assert.ok(r.stdout.split("\n").includes(line), what);
    assert.match(r.stdout, /^INVALID attestation$/m, what);
  }
});

Deno.test("tampered claim logs are refused before anything is signed", async () => {
  const text = await Deno.readTextFile(honest.log);
  const lines = text.split("\n");
  const cases: [string, string, CliErrorCode[]][] = [
    [
      "mid-log record",
      [
        lines[0],
        lines[1]!.replace(/"size":(\d+)/, (_m, d) => `"size":${Number(d) + 1}`),
        ...lines.slice(2),
      ].join("\n"),
      ["LOG_CHAIN"],
    ],
    ["truncated line", text.slice(0, text.length - 40), ["LOG_SYNTAX"]],
    ["wrong type", text.replace('"seq":0', '"seq":"0"'), ["CLAIM_INVALID"]],
    ["unknown version", text.replace("inference-claim/v1", "inference-claim/v2"), [
      "CLAIM_VERSION",
    ]],
    ["empty", "", ["LOG_EMPTY"]],
  ];
  for (const [name, body, re] of cases) {
    const path = `${honest.dir}/bad-${name.replace(/ /g, "_")}.jsonl`;
    await Deno.writeTextFile(path, body);
    const out = `${honest.dir}/bad-out-${name.replace(/ /g, "_")}`;
    const r = await runBitaudit([
      "audit",
      "--log",
      path,
      "--blobs",
      `${honest.dir}/log/blobs`,
      "--randomness",
      "ab",
      "--round",
      "1",
      "--k",
      "1",
      "--key",
      honest.key,
      "--out",
      out,
    ]);
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assertCliCode(r.stderr, ...re);
    assert.equal(r.stderr.trim().split("\n").length, 1, `${name}: one line`);
    await assert.rejects(() => Deno.stat(`${out}/attestation.dsse.json`), Deno.errors.NotFound);
  }
  // The last record can be altered without breaking the chain: the committed root catches it.
  const last = [
    ...lines.slice(0, 23),
    lines[23]!.replace(/"size":(\d+)/, (_m, d) => `"size":${Number(d) + 1}`),
    "",
  ].join("\n");
  await Deno.writeTextFile(`${honest.dir}/last.jsonl`, last);
  const root = (await runBitaudit(["claims", "root", "--log", honest.log])).stdout.trim();
  const r = await runBitaudit([
    "audit",
    "--log",
    `${honest.dir}/last.jsonl`,
    "--blobs",
    `${honest.dir}/log/blobs`,
    "--root",
    root,
    "--randomness",
    "ab",
    "--round",
    "1",
    "--k",
    "1",
    "--key",
    honest.key,
    "--out",
    `${honest.dir}/last-out`,
  ]);
  assert.equal(r.code, 2);
  assertCliCode(r.stderr, "AUDIT_ROOT_MISMATCH");
});

Deno.test("bad keys, envelopes and options are one-line errors with exit 2 and nothing overwritten", async () => {
  const d = honest.dir;
  const good = `${await audited(honest, "good", 2)}/attestation.dsse.json`;
  await Deno.writeTextFile(
    `${d}/bad.pem`,
    "-----BEGIN PRIVATE KEY-----\nnot base64!\n-----END PRIVATE KEY-----\n",
    { mode: 0o600 },
  );
  const shortKey = btoa(String.fromCharCode(...new Uint8Array(47)));
  await Deno.writeTextFile(
    `${d}/short.pem`,
    `-----BEGIN PRIVATE KEY-----\n${shortKey}\n-----END PRIVATE KEY-----\n`,
    { mode: 0o600 },
  );
  await Deno.writeTextFile(
    `${d}/env.json`,
    '{"payload":"%%%","payloadType":"application/vnd.in-toto+json","signatures":[{"keyid":"","sig":"AA=="}]}',
  );
  const audit = (
    over: { key?: string; log?: string; randomness?: string; k?: string },
    out: string,
  ) => [
    "audit",
    "--log",
    over.log ?? honest.log,
    "--randomness",
    over.randomness ?? "ab",
    "--round",
    "1",
    "--k",
    over.k ?? "1",
    "--key",
    over.key ?? honest.key,
    "--out",
    `${d}/${out}`,
  ];
  const cases: [string[], CliErrorCode[]][] = [
    [audit({ key: `${d}/bad.pem` }, "o1"), ["BAD_PEM", "BAD_BASE64"]],
    [audit({ key: `${d}/short.pem` }, "o2"), ["BAD_KEY"]],
    [audit({ randomness: "xyz" }, "o3"), ["USAGE_RANDOMNESS"]],
    [audit({ k: "999" }, "o4"), ["AUDIT_K"]],
    [audit({ log: `${d}/missing.jsonl` }, "o5"), ["INPUT_MISSING"]],
    [["check", `${d}/env.json`, "--trust-root", honest.trustRoot], ["BAD_BASE64", "BAD_ENVELOPE"]],
    [["check", `${d}/nothing.json`, "--trust-root", honest.trustRoot], ["INPUT_MISSING"]],
    [["check", good, "--trust-root", honest.log], ["BAD_TRUST_ROOT", "INPUT_JSON"]],
    [["plan", "--population", "100", "--p-false", "2"], ["USAGE_NUMBER"]],
  ];
  for (const [args, re] of cases) {
    const r = await runBitaudit(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assertCliCode(r.stderr, ...re);
    assert.equal(r.stderr.trim().split("\n").length, 1);
    assert.ok(!r.stderr.includes("    at "), "no stack trace");
  }
  // Existing outputs are never overwritten.
  const out = `${d}/keep`;
  await Deno.mkdir(out);
  await Deno.writeTextFile(`${out}/report.md`, "mine");
  const r = await runBitaudit(auditArgs(honest, out, 2));
  assert.equal(r.code, 2);
  assertCliCode(r.stderr, "OUTPUT_EXISTS");
  assert.equal(await Deno.readTextFile(`${out}/report.md`), "mine");
  // An existing output folder the system does not let this process write into is named before
  // any record is recomputed, not after the work, when the attestation would be written.
  const shut = `${d}/shut`;
  await Deno.mkdir(shut);
  await lockFolder(shut, true);
  try {
    const denied = await runBitaudit(auditArgs(honest, shut, 2));
    assert.equal(denied.code, 2, denied.stderr);
    assertCliCode(denied.stderr, "OUTPUT_WRITE");
    // The folder itself is named: refused when it was prepared, before the attestation.
    assert.match(denied.stderr, /Cannot write into '[^']*shut'/);
  } finally {
    await lockFolder(shut, false);
  }
  assert.deepEqual([...Deno.readDirSync(shut)], []);
  const before = await Deno.readTextFile(honest.key);
  const g = await runBitaudit(["key", "generate", "--out", honest.key.replace(/\.key$/, "")]);
  assert.equal(g.code, 2);
  assert.equal(await Deno.readTextFile(honest.key), before);
  assert.equal((await Deno.stat(honest.key)).mode! & 0o777, 0o600);
});

/**
 * Makes a folder unwritable for this user, or writable again: its mode for a normal user, the
 * immutable attribute for root (whom modes do not stop).
 */
async function lockFolder(dir: string, locked: boolean): Promise<void> {
  // The folder's owner is this process (Deno.uid() would need --allow-sys).
  if ((await Deno.stat(dir)).uid !== 0) return await Deno.chmod(dir, locked ? 0o555 : 0o755);
  const r = await new Deno.Command("chattr", { args: [locked ? "+i" : "-i", dir] }).output();
  assert.equal(r.code, 0, `chattr: ${new TextDecoder().decode(r.stderr)}`);
}

Deno.test("a tampered wasm engine stops the audit with exit 5 (ASSET)", async () => {
  const dir = await copyCheckout();
  try {
    const p = `${dir}/tables/wasm/gemm_engine.wasm`;
    const bytes = await Deno.readFile(p);
    bytes[bytes.length - 9]! ^= 0x40;
    await Deno.writeFile(p, bytes);
    const r = await runBitaudit(auditArgs(honest, `${honest.dir}/wasm-out`, 2), { root: dir });
    assert.equal(r.code, 5);
    assertCliCode(r.stderr, "ASSET_DIGEST_MISMATCH");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("plan reproduces the paper's appendix: p = 0.001, k = 3200 detects with ~0.96", async () => {
  const r = await runBitaudit([
    "plan",
    "--population",
    "1000000",
    "--p-false",
    "0.001",
    "--k",
    "3200",
    "--json",
  ]);
  assert.equal(r.code, 0);
  assert.equal(Number(JSON.parse(r.stdout).detectionBinomial.toFixed(2)), 0.96);
  const s = JSON.parse(
    (await runBitaudit([
      "plan",
      "--population",
      "1000000",
      "--p-false",
      "0.05",
      "--confidence",
      "0.95",
      "--json",
    ])).stdout,
  );
  assert.equal(s.kBinomial, 59);
  assert.ok(s.kHypergeometric <= 59);
});

Deno.test("plan never prints a probability above the truth and counts F exactly (review h141)", async () => {
  const plan = async (...args: string[]) => {
    const r = await runBitaudit(["plan", ...args]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  // N = 1860, F = 19, k = 270: 0.94999997982... (printed 0.950000 before, while --confidence
  // 0.95 said k = 271).
  const at270 = await plan("--population", "1860", "--p-false", "0.01", "--k", "270");
  assert.match(at270, /^ {2}0\.949999 {2}hypergeometric/m);
  const sized = await plan("--population", "1860", "--p-false", "0.01", "--confidence", "0.95");
  assert.match(sized, /^ {2}k = 271 {2}finite-population/m);
  // p = 5 %, k = 290: 0.99999965... (printed 1.000000 before).
  const near1 = await plan("--population", "999", "--p-false", "0.05", "--k", "290", "--json");
  assert.equal(JSON.parse(near1).detectionBinomial, 0.999999);
  // F = ceil(p·N) exactly: doubles gave 19,594,961 and 22,808,048.
  for (
    const [n, p, f] of [["279928000", "0.07", 19_594_960], [
      "2280804700000",
      "0.00001",
      22_808_047,
    ]] as const
  ) {
    const out = JSON.parse(await plan("--population", n, "--p-false", p, "--k", "1", "--json"));
    assert.equal(out.falseCount, f);
    const c = JSON.parse(
      await plan("--population", n, "--p-false", p, "--confidence", "0.5", "--json"),
    );
    assert.equal(c.falseCount, f);
  }
  // A rate Number() reads as 1 but above 1 is refused.
  const r = await runBitaudit([
    ...["plan", "--population", "10", "--p-false", "1.0000000000000000001", "--k", "1"],
  ]);
  assert.equal(r.code, 2);
  assertCliCode(r.stderr, "USAGE_NUMBER");
  // And one below 1 that Number() reads as 1: 1 − 10^−17 printed binomial 1.000000 (certain).
  for (const below of ["0.99999999999999999", "0.99999999999999995", "9.99999999999999999e-1"]) {
    const b = await runBitaudit(["plan", "--population", "1000", "--p-false", below, "--k", "1"]);
    assert.equal(b.code, 2, below);
    assertCliCode(b.stderr, "USAGE_NUMBER");
    assert.match(b.stderr, /below 1 but read as 1/);
  }
  // 1 itself, in any form, is certain; the largest double below 1 is not.
  for (const one of ["1", "1.000", "10e-1"]) {
    const o = JSON.parse(
      await plan("--population", "1000", "--p-false", one, "--k", "1", "--json"),
    );
    assert.equal(o.detectionBinomial, 1, one);
  }
  const most = await plan("--population", "1000", "--p-false", "0.9999999999999999", "--k", "1");
  assert.match(most, /^ {2}0\.999999 {2}binomial/m);
});

Deno.test("audit recomputes attention and FFN block records, signs their SFU statuses, and check --recompute agrees", async () => {
  const f = await makeAuditFixture({ records: 2, falsify: [], blocks: 4 });
  const out = `${f.dir}/blocks`;
  const r = await runBitaudit([...auditArgs(f, out, 6), "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.verdict, "PASSED");
  const blocks = s.results.filter((x: { index: number }) => x.index >= 2);
  assert.equal(blocks.length, 4);
  for (const b of blocks) {
    const fns = b.sfu.map((u: { fn: string; status: string }) => `${u.fn} ${u.status}`);
    assert.ok(fns.includes("ex2 spot-checked") && fns.includes("rsqrt histogram-matched"));
  }
  const envelope = JSON.parse(await Deno.readTextFile(`${out}/attestation.dsse.json`));
  const payload = JSON.parse(atob(envelope.payload));
  assert.ok(payload.predicate.assets["tables/sfu/tesla_sfu_v1.bin"], "SFU table digest is bound");
  assert.ok(payload.predicate.results.some((x: { sfu?: unknown[] }) => (x.sfu?.length ?? 0) === 3));
  const c = await runBitaudit([
    "check",
    `${out}/attestation.dsse.json`,
    "--trust-root",
    f.trustRoot,
    "--log",
    f.log,
    "--recompute",
    "--threads",
    "1",
  ]);
  assert.equal(c.code, 0, c.stdout + c.stderr);
  assert.match(c.stdout, /^ok {3}recompute\[\d+\]: attested PASS, recomputed PASS$/m);
  // --threads takes the range every command takes, and only with --recompute.
  const check = (...extra: string[]) =>
    runBitaudit(["check", `${out}/attestation.dsse.json`, "--trust-root", f.trustRoot, ...extra]);
  assertCliCode(
    (await check("--log", f.log, "--recompute", "--threads", "0")).stderr,
    "USAGE_NUMBER",
  );
  assertCliCode((await check("--threads", "1")).stderr, "USAGE_RECOMPUTE");
});
