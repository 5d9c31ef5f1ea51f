/**
 * `key trust-root --extend`: rotation (`--end` an inspector key's window, add the next key) and
 * revocation (`--revoke` with its reason) from an existing trust root, keeping every key, chain
 * and TSA it lists; what `check` says of an attestation against the new root.
 */
import assert from "node:assert/strict";
import {
  buildTrustRoot,
  encodePublicKeyPem,
  generateKeyPair,
  keyId,
  MAX_TRUST_ROOT_KEYS,
  parseTrustRoot,
} from "../../src/attest/mod.ts";
import { assertCliCode } from "../_assert_code.ts";
import { runBitaudit } from "./_run.ts";
import {
  beaconAudit,
  f,
  goodRoot,
  inspectorPub,
  keyTrustRoot,
  ORIGIN,
  prover,
  stranger,
} from "./_trust_fixture.ts";

const good = await beaconAudit();
const oldId = keyId(inspectorPub);
const check = (root: string) =>
  runBitaudit(["check", good.attestation, "--trust-root", root, "--json"]);

Deno.test("key trust-root --extend --end --pub: the old key keeps its past window, the next key is added, pins kept; the attestation still checks", async () => {
  const out = `${f.dir}/rotated.json`;
  const r = await keyTrustRoot([
    ...["--extend", goodRoot, "--end", `${oldId.slice(0, 12)}=2099-01-01T00:00:00Z`],
    ...["--pub", stranger.publicKey, "--valid-from", "2099-01-01T00:00:00Z"],
  ], out);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /kept the \d+ key\(s\) of /);
  assert.match(r.stdout, /^drand chains pinned: quicknet \(52db9ba70e0cc0f6…\)$/m);
  assert.match(r.stdout, new RegExp(`key ${oldId.slice(0, 12)}: valid until 2099-01-01T00:00:00Z`));
  const before = parseTrustRoot(await Deno.readTextFile(goodRoot));
  const after = parseTrustRoot(await Deno.readTextFile(out));
  assert.equal(after.keys.length, before.keys.length + 1);
  const old = after.keys.find((k) => k.keyid === oldId)!;
  assert.equal(old.validFor.end, Date.parse("2099-01-01T00:00:00Z"));
  assert.equal(old.validFor.start, before.keys.find((k) => k.keyid === oldId)!.validFor.start);
  assert.deepEqual(after.drand, before.drand);
  assert.equal((await check(out)).code, 0);
});

Deno.test("key trust-root --extend --revoke: the key's signatures from then on do not count, and check's hint names the revocation", async () => {
  const out = `${f.dir}/revoked.json`;
  const r = await keyTrustRoot([
    ...["--extend", goodRoot, "--revoke", `${oldId}=2024-01-01T00:00:00Z`],
    ...["--revoke-reason", "key compromised"],
  ], out);
  assert.equal(r.code, 0, r.stderr);
  const root = parseTrustRoot(await Deno.readTextFile(out));
  assert.equal(root.keys.find((k) => k.keyid === oldId)!.revoked?.reason, "key compromised");
  const c = await check(out);
  assert.equal(c.code, 1);
  const hints: string[] = JSON.parse(c.stdout).hints;
  assert.ok(
    hints.some((h) => /its revocation is the trust root's `revoked` entry/.test(h)),
    c.stdout,
  );
});

Deno.test("key trust-root --extend refuses what it cannot apply (nothing written)", async () => {
  const cases: [string[], RegExp][] = [
    [["--end", "deadbeef00=2099-01-01T00:00:00Z"], /no key of the existing trust root/],
    [["--end", `${oldId}=1999-01-01T00:00:00Z`], /before its start/],
    [["--end", `${oldId}=yesterday`], /expected KEYID=TIME/],
    [["--revoke", `${oldId}=2024-01-01T00:00:00Z`], /without --revoke-reason/],
    [["--pub", f.pub], /the existing trust root lists it/],
    // A prover key's end would undo every audit of its checkpoints (no token dates them).
    [["--end", `${prover.keyid}=2099-01-01T00:00:00Z`], /Cannot end prover key .* --revoke it/],
    // Window flags with no key added, a reason with no revocation: they would change nothing.
    [["--valid-from", "2024-01-01T00:00:00Z"], /no key added/],
    [["--valid-until", "2024-01-01T00:00:00Z"], /--valid-until without --pub/],
    [["--revoke-reason", "x"], /without --revoke$/m],
    [
      ["--prover", stranger.publicKey, "--valid-until", "2027-01-01T00:00:00Z"],
      /--valid-until without --pub/,
    ],
    [
      ["--pub", stranger.publicKey, "--prover-valid-from", "2020-01-01T00:00:00Z"],
      /--prover-valid-from without --prover/,
    ],
  ];
  for (const [extra, why] of cases) {
    const out = `${f.dir}/never-${extra.join("").length}.json`;
    const r = await keyTrustRoot(["--extend", goodRoot, ...extra], out);
    assert.equal(r.code, 2, `${extra}: ${r.stdout}${r.stderr}`);
    assertCliCode(r.stderr, "USAGE");
    assert.match(r.stderr, why);
    await assert.rejects(() => Deno.stat(out), Deno.errors.NotFound);
  }
  const noBase = await keyTrustRoot(
    ["--end", `${oldId}=2099-01-01T00:00:00Z`, "--pub", f.pub],
    `${f.dir}/never-nobase.json`,
  );
  assert.match(noBase.stderr, /without --extend/);
});

Deno.test("key trust-root --extend refuses a base root whose pins check would refuse (BAD_TRUST_ROOT, not an internal error)", async () => {
  const base = JSON.parse(await Deno.readTextFile(goodRoot));
  for (
    const [what, pins] of [["drand {}", { drand: {} }], ["tsa [null]", { tsa: [null] }]] as const
  ) {
    const path = `${f.dir}/bad-pins-${what.replace(/\W/g, "")}.json`;
    await Deno.writeTextFile(path, JSON.stringify({ ...base, ...pins }));
    const r = await keyTrustRoot(["--extend", path, "--pub", stranger.publicKey], `${path}.out`);
    assert.equal(r.code, 2, `${what}: ${r.stderr}`);
    assertCliCode(r.stderr, "BAD_TRUST_ROOT");
  }
});

Deno.test("key trust-root with more keys than a trust root holds is refused (USAGE_TRUST, exit 2, nothing written), not an internal error", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-keys-" });
  try {
    const pubs: string[] = [];
    for (let i = 0; i < 65; i++) {
      const k = await generateKeyPair();
      pubs.push(`${dir}/k${i}.pub`);
      await Deno.writeTextFile(pubs[i]!, encodePublicKeyPem(k.publicKey));
    }
    const r = await keyTrustRoot(["--pub", ...pubs], `${dir}/root.json`);
    assert.equal(r.code, 2, r.stderr);
    assertCliCode(r.stderr, "USAGE_TRUST");
    assert.match(r.stderr, /65 keys \(--pub and --prover\), at most 64/);
    await assert.rejects(Deno.stat(`${dir}/root.json`), Deno.errors.NotFound);
    const ok = await keyTrustRoot(["--pub", ...pubs.slice(0, 64)], `${dir}/root64.json`);
    assert.equal(ok.code, 0, ok.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("key trust-root refuses an empty or impossible window time by its flag (USAGE_TIME) and writes nothing: an empty --valid-until had set no end (review h103)", async () => {
  const cases: [string, string][] = [
    ["--valid-until", ""],
    ["--valid-from", "2026-02-30T00:00:00Z"],
    ["--valid-from", ""],
  ];
  for (const [flag, value] of cases) {
    const out = `${f.dir}/window-${flag.slice(2)}-${value.length}.json`;
    const r = await keyTrustRoot(["--pub", stranger.publicKey, flag, value], out);
    assert.equal(r.code, 2, `${flag} '${value}': ${r.stderr}`);
    assertCliCode(r.stderr, "USAGE_TIME");
    assert.match(r.stderr, new RegExp(`Cannot use ${flag} `));
    await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
  }
});

Deno.test("key trust-root --extend past the key limit is a usage error (USAGE_TRUST), not a trust root that cannot be read (review h103)", async () => {
  const pubs = await Promise.all(
    Array.from({ length: MAX_TRUST_ROOT_KEYS }, async () => (await generateKeyPair()).publicKey),
  );
  const full = `${f.dir}/full-root.json`;
  await Deno.writeTextFile(
    full,
    JSON.stringify(buildTrustRoot(pubs, { start: "2026-01-01T00:00:00Z" })),
  );
  const out = `${f.dir}/over-full.json`;
  const r = await keyTrustRoot(["--extend", full, "--pub", stranger.publicKey], out);
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "USAGE_TRUST");
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
});

Deno.test("key trust-root --extend of a root pinning its prover keys' origin refuses an unpinned prover key, and adds a pinned one with its origin", async () => {
  const pinned = `${f.dir}/pinned-root.json`;
  const made = await keyTrustRoot(
    ["--pub", f.pub, "--prover", prover.publicKey, "--prover-origin", ORIGIN],
    pinned,
  );
  assert.equal(made.code, 0, made.stderr);
  const refusedOut = `${f.dir}/pinned-unpinned.json`;
  const extend = ["--extend", pinned, "--prover", stranger.publicKey];
  const r = await keyTrustRoot(extend, refusedOut);
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /Cannot add prover key [0-9a-f]{16}… without --prover-origin: the existing trust root pins its prover keys to "bitaudit\.example\/prover-1\/log"/,
  );
  await assert.rejects(Deno.stat(refusedOut), Deno.errors.NotFound);
  const out = `${f.dir}/pinned-extended.json`;
  const ok = await keyTrustRoot([...extend, "--prover-origin", ORIGIN], out);
  assert.equal(ok.code, 0, ok.stderr);
  const keys = parseTrustRoot(await Deno.readTextFile(out)).keys.filter((k) => k.role === "prover");
  assert.deepEqual(keys.map((k) => k.origin), [ORIGIN, ORIGIN]);
});

Deno.test("key trust-root refuses a key given as both --pub and --prover, or twice (a copy too), with USAGE_KEYS naming both files, nothing written", async () => {
  const copy = `${f.dir}/prover-copy.pub`;
  await Deno.copyFile(prover.publicKey, copy);
  const cases: [string[], RegExp][] = [
    [
      ["--pub", f.pub, "--prover", f.pub],
      /Cannot use --prover '.*': its key [0-9a-f]{16}… is given as --pub '.*' too, and a key has one role/,
    ],
    [
      ["--pub", f.pub, "--prover", prover.publicKey, copy],
      /Cannot use --prover '.*prover-copy\.pub': its key [0-9a-f]{16}… is given twice/,
    ],
    [["--extend", goodRoot, "--pub", stranger.publicKey, "--prover", stranger.publicKey], /--pub/],
  ];
  for (const [i, [args, why]] of cases.entries()) {
    const out = `${f.dir}/root-twice-${i}.json`;
    const r = await keyTrustRoot(args, out);
    assert.equal(r.code, 2, r.stderr);
    assertCliCode(r.stderr, "USAGE_KEYS");
    assert.match(r.stderr, why);
    await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
  }
});
