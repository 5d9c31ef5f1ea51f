/**
 * Issue 25, new-user items: `check` keeps the attestation's validity and the verdict apart, takes
 * policy flags as signing tools do (`--require-verdict`, `--require-root`, `--require-prover`:
 * exit 1 when unmet, a line naming the policy, `--json` carrying it), and a validity window that
 * starts after a key signed names its dates and the flag that sets it, from `key trust-root`'s
 * printed defaults to `check`'s hint.
 */
import assert from "node:assert/strict";
import { decodeBase64, encodeBase64 } from "../../src/attest/mod.ts";
import { assertCliCode } from "../_assert_code.ts";
import { auditArgs } from "./_audit_fixture.ts";
import { runBitaudit } from "./_run.ts";
import {
  beaconAudit,
  CHAIN,
  f,
  goodRoot,
  keyTrustRoot,
  ORIGIN,
  prover,
  resign,
  stranger,
  trustRoot,
} from "./_trust_fixture.ts";

const good = await beaconAudit(); // drand round 123, checkpoint signed 2023-08-23T15:00:00Z
const statement = JSON.parse(
  new TextDecoder().decode(
    decodeBase64(JSON.parse(await Deno.readTextFile(good.attestation)).payload),
  ),
);
const LOG_ROOT: string = statement.predicate.audit.logRoot;
const check = (...extra: string[]) =>
  runBitaudit(["check", good.attestation, "--trust-root", goodRoot, ...extra]);

Deno.test("check prints the attestation's validity and the verdict as two lines", async () => {
  const r = await check();
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split("\n");
  const at = lines.findIndex((l) => l.startsWith("VALID attestation: "));
  assert.equal(
    lines[at],
    `VALID attestation: signed by a key of your trust root, every check passed (audit ${statement.predicate.audit.auditId})`,
  );
  assert.match(lines[at + 1]!, /^Verdict PASSED: each of the 3 sampled records was recomputed/);
  assert.doesNotMatch(r.stdout, /VALID attestation: verdict/);
});

Deno.test("check --require-verdict, --require-root, --require-prover: met, exit 0", async () => {
  const r = await check(
    "--require-verdict",
    "PASSED",
    "--require-root",
    LOG_ROOT.toUpperCase(),
    "--require-prover",
    prover.keyid,
  );
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /^ok {3}policy --require-verdict PASSED: the attested verdict is PASSED$/m,
  );
  assert.match(r.stdout, new RegExp(`^ok {3}policy --require-root ${LOG_ROOT}: `, "m"));
  assert.match(
    r.stdout,
    new RegExp(`^ok {3}policy --require-prover ${prover.keyid}: the attested prover key`, "m"),
  );
  assert.match(r.stdout, /^policy met$/m);
});

Deno.test("check with an unmet policy exits 1 and says which policy failed", async () => {
  const cases: [string[], RegExp][] = [
    [
      ["--require-verdict", "FAILED"],
      /^FAIL policy --require-verdict FAILED: the attested verdict is PASSED$/m,
    ],
    [["--require-root", "00".repeat(32)], new RegExp(`the attested log root is ${LOG_ROOT}$`, "m")],
    [
      ["--require-prover", stranger.keyid],
      new RegExp(`signer of the checkpoint\\) is ${prover.keyid}$`, "m"),
    ],
  ];
  for (const [flags, line] of cases) {
    const r = await check(...flags);
    assert.equal(r.code, 1, flags.join(" "));
    assert.match(r.stdout, /^VALID attestation: /m, "the attestation itself is still valid");
    assert.match(r.stdout, line, r.stdout);
    assert.match(r.stdout, new RegExp(`^POLICY NOT MET: ${flags.join(" ")}$`, "m"));
  }
});

Deno.test("check --json carries the policy with each requirement", async () => {
  const r = await check("--require-verdict", "FAILED", "--require-prover", prover.keyid, "--json");
  assert.equal(r.code, 1);
  const out = JSON.parse(r.stdout);
  assert.equal(out.valid, true);
  assert.deepEqual(out.policy, {
    met: false,
    requirements: [
      { flag: "--require-verdict", required: "FAILED", found: "PASSED", met: false },
      { flag: "--require-prover", required: prover.keyid, found: prover.keyid, met: true },
    ],
  });
  assert.equal(out.attestationFormat, "dsse");
  assert.equal((await check("--json")).stdout.includes('"policy"'), false);
});

Deno.test("check --require-sample: met at the sampled k or fewer, unmet above it, refused when not an integer from 1", async () => {
  const k: number = statement.predicate.audit.k;
  for (const n of [1, k]) {
    const r = await check("--require-sample", String(n));
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      new RegExp(
        `^ok {3}policy --require-sample ${n}: the attested sample size \\(records\\) is ${k}$`,
        "m",
      ),
    );
  }
  const more = await check("--require-sample", String(k + 1));
  assert.equal(more.code, 1, more.stdout + more.stderr);
  assert.match(more.stdout, new RegExp(`^FAIL policy --require-sample ${k + 1}: .* is ${k}$`, "m"));
  assert.match(more.stdout, new RegExp(`^POLICY NOT MET: --require-sample ${k + 1}$`, "m"));
  for (const bad of ["0", "-1", "2.0", "x"]) {
    const r = await check("--require-sample", bad);
    assert.equal(r.code, 2, bad);
    assertCliCode(r.stderr, "USAGE_NUMBER");
  }
});

Deno.test("check --require-prover on an audit without a signed checkpoint is unmet", async () => {
  const out = `${f.dir}/no-checkpoint`;
  assert.equal((await runBitaudit(auditArgs(f, out, 2))).code, 0);
  const r = await runBitaudit([
    "check",
    `${out}/attestation.dsse.json`,
    "--trust-root",
    f.trustRoot,
    "--require-prover",
    prover.keyid,
  ]);
  assert.equal(r.code, 1);
  assert.match(
    r.stdout,
    /^FAIL policy --require-prover [0-9a-f]{64}: the attestation states no prover key .*no signed prover checkpoint/m,
  );
});

Deno.test("check refuses a malformed policy value with USAGE_POLICY (exit 2)", async () => {
  for (
    const flags of [
      ["--require-verdict", "passed"],
      ["--require-root", "abc"],
      ["--require-prover", "zz".repeat(32)],
    ]
  ) {
    const r = await check(...flags);
    assert.equal(r.code, 2, flags.join(" "));
    assertCliCode(r.stderr, "USAGE_POLICY");
    assert.equal(r.stdout, "");
  }
});

Deno.test("key trust-root prints its windows and defaults; check names the dates and --prover-valid-from", async () => {
  const root = `${f.dir}/default-root.json`;
  const made = await keyTrustRoot(["--pub", f.pub, "--prover", prover.publicKey], root);
  assert.equal(made.code, 0, made.stderr);
  assert.match(
    made.stdout,
    /^inspector keys \(1\): valid from 2026-01-01T00:00:00Z \(the default; set with --valid-from\) with no end/m,
  );
  // What else the root trusts is said too: here no chain and no TSA.
  assert.match(
    made.stdout,
    /^drand chains pinned: none \(no beacon round verifies; give --drand\)$/m,
  );
  assert.match(made.stdout, /^time-stamp authorities pinned: none/m);
  assert.match(
    made.stdout,
    /^prover keys \(1\): valid from 2026-01-01T00:00:00Z \(--valid-from's default; set with --prover-valid-from\); a checkpoint the prover signed earlier does not count; checkpoints of any origin \(pin the prover's log with --prover-origin\)$/m,
  );
  const r = await runBitaudit(["check", good.attestation, "--trust-root", root]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^FAIL checkpoint: prover key not valid when it signed/m);
  // The summary does not call a refused checkpoint prover-signed.
  assert.match(r.stdout, /; commitment: checkpoint refused;/);
  assert.equal(
    JSON.parse(
      (await runBitaudit(["check", good.attestation, "--trust-root", root, "--json"])).stdout,
    )
      .trust.commitment,
    "refused",
  );
  const hint = r.stdout.split("\n").find((l) => l.startsWith("hint: "));
  assert.ok(hint !== undefined, r.stdout);
  assert.match(
    hint,
    new RegExp(`prover key ${prover.keyid.slice(0, 16)}… from 2026-01-01T00:00:00Z`),
  );
  assert.match(hint, /signed the checkpoint at 2023-08-23T15:00:00Z/);
  assert.match(hint, /--prover-valid-from 2023-08-23T15:00:00Z` or earlier/);
  assert.match(hint, /not a sign of tampering/);
  const json = JSON.parse(
    (await runBitaudit(["check", good.attestation, "--trust-root", root, "--json"])).stdout,
  );
  assert.deepEqual(json.hints, [hint.slice("hint: ".length)]);
  // With the window the hint names, the same attestation checks out (the drand chain pinned too).
  const fixed = await trustRoot("prover-2023", { proverFrom: "2023-08-23T15:00:00Z" });
  assert.equal((await runBitaudit(["check", good.attestation, "--trust-root", fixed])).code, 0);
});

Deno.test("key trust-root --prover-origin pins the prover's log: check accepts its checkpoints of that origin and refuses one of another, with a hint", async () => {
  const pinned = async (name: string, origin: string) => {
    const root = `${f.dir}/${name}.json`;
    const made = await keyTrustRoot([
      ...["--pub", f.pub, "--prover", prover.publicKey],
      ...["--prover-valid-from", "2023-01-01T00:00:00Z", "--prover-origin", origin],
      ...["--drand", CHAIN],
    ], root);
    assert.equal(made.code, 0, made.stderr);
    assert.match(
      made.stdout,
      new RegExp(`checkpoints of origin ${origin} only \\(--prover-origin\\)$`, "m"),
    );
    return root;
  };
  const own = await pinned("origin-own", ORIGIN);
  assert.equal(JSON.parse(await Deno.readTextFile(own)).keys[1].origin, ORIGIN);
  const ok = await runBitaudit(["check", good.attestation, "--trust-root", own]);
  assert.equal(ok.code, 0, ok.stdout);
  assert.match(ok.stdout, /^ok {3}checkpoint: prover checkpoint bitaudit\.example\/prover-1\/log/m);
  const other = await pinned("origin-other", "bitaudit.example/prover-1/other-log");
  const r = await runBitaudit(["check", good.attestation, "--trust-root", other]);
  assert.equal(r.code, 1);
  assert.match(
    r.stdout,
    /^FAIL checkpoint: the checkpoint's origin "bitaudit\.example\/prover-1\/log" is not "bitaudit\.example\/prover-1\/other-log", the one origin the trust root lets prover key [0-9a-f]{16}… sign$/m,
  );
  assert.match(
    r.stdout,
    /^hint: .*--prover-origin.*this checkpoint names "bitaudit\.example\/prover-1\/log"/m,
  );
  // Only the origin the key signed is blamed on the pin: a recorded origin that is not the note's,
  // or a note the key never signed, is the inspector's word, not a second log of the prover's.
  const edited = [
    (cp: Record<string, string>) => cp.origin = "bitaudit.example/prover-1/other-log",
    (cp: Record<string, string>) => {
      cp.note = cp.note!.replace(ORIGIN, "bitaudit.example/prover-1/other-log");
      cp.origin = "bitaudit.example/prover-1/other-log";
    },
  ];
  for (const [i, edit] of edited.entries()) {
    const forged = await resign<{ checkpoint: Record<string, string> }>(good.attestation, {
      name: `origin-recorded-${i}`,
      edit: (a) => edit(a.checkpoint),
    });
    const c = await runBitaudit(["check", forged, "--trust-root", own]);
    assert.equal(c.code, 1, c.stdout);
    assert.match(c.stdout, /^FAIL checkpoint: (the recorded checkpoint fields|no valid prover)/m);
    assert.doesNotMatch(c.stdout, /--prover-origin/);
  }
  for (
    const [extra, why] of [
      [["--prover-origin", ORIGIN], /--prover-origin without --prover/],
      [["--prover", prover.publicKey, "--prover-origin", "two words"], /--prover-origin must be/],
    ] as const
  ) {
    const out = `${f.dir}/origin-refused.json`;
    const bad = await keyTrustRoot(["--pub", f.pub, ...extra], out);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, why);
    await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
  }
});

Deno.test("check of an invalid attestation meets no policy and names why", async () => {
  const late = await trustRoot("late-prover-policy", { proverFrom: "2024-01-01T00:00:00Z" });
  const r = await runBitaudit([
    "check",
    good.attestation,
    "--trust-root",
    late,
    "--require-verdict",
    "PASSED",
  ]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^INVALID attestation$/m);
  assert.match(
    r.stdout,
    /^FAIL policy --require-verdict PASSED: not met: the attestation is not valid/m,
  );
  assert.match(r.stdout, /^hint: Your trust root dates prover key .* from 2024-01-01T00:00:00Z/m);
});

Deno.test("an inspector key's window hint is given for a signature the key made, never for a tampered payload naming the key", async () => {
  // The statement's time is now-ish (the fixture audit ran just before): a window from 2099 refuses
  // the genuine signature, and the hint names the window and --valid-from.
  const late = await trustRoot("inspector-2099", { inspectorFrom: "2099-01-01T00:00:00Z" });
  const refused = await runBitaudit(["check", good.attestation, "--trust-root", late, "--json"]);
  assert.equal(refused.code, 1);
  const hints: string[] = JSON.parse(refused.stdout).hints;
  assert.equal(hints.length, 1, refused.stdout);
  assert.match(
    hints[0]!,
    /^Your trust root lets inspector key \w+… sign from 2099-01-01T00:00:00Z/,
  );
  // The same envelope with a changed payload: no key verifies it, so it is a forgery, and the
  // keyid hint it carries must not turn into advice to widen the trust root.
  const env = JSON.parse(await Deno.readTextFile(good.attestation));
  const st = JSON.parse(new TextDecoder().decode(decodeBase64(env.payload)));
  st.predicate.timeVerified = "2022-06-01T00:00:00Z";
  env.payload = encodeBase64(new TextEncoder().encode(JSON.stringify(st)));
  const path = `${f.dir}/tampered-hinted.dsse.json`;
  await Deno.writeTextFile(path, JSON.stringify(env));
  const forged = await runBitaudit(["check", path, "--trust-root", goodRoot, "--json"]);
  assert.equal(forged.code, 1);
  const report = JSON.parse(forged.stdout);
  assert.equal(report.valid, false);
  assert.equal(report.hints, undefined, forged.stdout);
});

Deno.test("check reads an attestation of up to 64 MiB (an audit signs none larger), and refuses one above", async () => {
  const text = await Deno.readTextFile(good.attestation);
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-big-" });
  try {
    // White space between JSON tokens changes nothing that is signed.
    const padded = (bytes: number) => `{${" ".repeat(bytes - text.length)}${text.slice(1)}`;
    await Deno.writeTextFile(`${dir}/a.json`, padded(20 * 1024 * 1024));
    const r = await runBitaudit(["check", `${dir}/a.json`, "--trust-root", goodRoot]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^VALID attestation: /m);
    await Deno.writeTextFile(`${dir}/b.json`, padded(64 * 1024 * 1024 + 1));
    const big = await runBitaudit(["check", `${dir}/b.json`, "--trust-root", goodRoot]);
    assert.equal(big.code, 2, big.stderr);
    assertCliCode(big.stderr, "INPUT_TOO_LARGE");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
