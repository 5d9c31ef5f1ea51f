import assert from "node:assert/strict";
import {
  buildTrustRoot,
  decodeBase64,
  generateKeyPair,
  InputError,
  keyId,
  MAX_ENVELOPE_BYTES,
  parseStatement,
  parseTrustRoot,
  parseVerdictPredicate,
  publicKeyFromPrivate,
  signVerdict,
  type SignVerdictOptions,
  verifyEnvelope,
} from "../../mod.ts";
import { verdictReport } from "./_verdict_report.ts";
import { isCode } from "../_assert_code.ts";

const privateKey = Uint8Array.from({ length: 32 }, (_, i) => 32 - i);
const key = { privateKey, publicKey: await publicKeyFromPrivate(privateKey) };
const store = {
  manifestSha256: "66".repeat(32),
  used: () => ({ "profiles/a100.json": "77".repeat(32) }),
};
const options: SignVerdictOptions = {
  keys: [key],
  time: "2026-03-01T12:00:00Z",
  store,
  engine: "reference",
  runtime: "deno test",
};

Deno.test("signVerdict() signs the statement it returns and binds the store's assets", async () => {
  const s = await signVerdict(verdictReport(), options);
  const v = await verifyEnvelope(s.envelope, { trustedKeys: [key.publicKey] });
  assert.ok(v.verified);
  const st = parseStatement(v.payload);
  assert.deepEqual(st, JSON.parse(JSON.stringify(s.statement)));
  const p = parseVerdictPredicate(st.predicate);
  assert.deepEqual(p.assets, {
    "tables/manifest.json": "66".repeat(32),
    "profiles/a100.json": "77".repeat(32),
  });
  assert.deepEqual(s.assets, p.assets);
  assert.deepEqual(p.verifier, {
    id: "bitaudit",
    version: p.verifier.version,
    engine: "reference",
    runtime: "deno test",
  });
  assert.deepEqual(s.keyids, [keyId(key.publicKey)]);
  assert.equal(s.text, JSON.stringify(s.envelope, null, 2) + "\n");
  assert.deepEqual(decodeBase64(s.envelope.payload), v.payload);
});

Deno.test("signVerdict() gives the same bytes for the same report, key and time", async () => {
  const a = await signVerdict(verdictReport(), options);
  const b = await signVerdict(verdictReport(), options);
  assert.equal(a.text, b.text);
  const later = await signVerdict(verdictReport(), { ...options, time: "2026-03-01T12:00:01Z" });
  assert.notEqual(later.text, a.text);
});

Deno.test("signVerdict() records the current time in whole seconds when none is given", async () => {
  const { time: _, ...rest } = options;
  const before = Date.now() - 1000;
  const s = await signVerdict(verdictReport(), rest);
  assert.match(s.timeVerified, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const t = Date.parse(s.timeVerified);
  assert.ok(t >= before && t <= Date.now(), s.timeVerified);
});

Deno.test("signVerdict() refuses a bad time, a report that makes no valid predicate, and no key", async () => {
  await assert.rejects(
    () => signVerdict(verdictReport(), { ...options, time: "1 March 2026" }),
    isCode(InputError, "BAD_TIMESTAMP"),
  );
  const report = { ...verdictReport(), population: 2.5 };
  await assert.rejects(
    () => signVerdict(report, options),
    isCode(InputError, "VERDICT_FIELD_VALUE"),
  );
  await assert.rejects(() => signVerdict(verdictReport(), { ...options, keys: [] }), RangeError);
});

Deno.test("signVerdict() refuses an attestation larger than a checker reads, and says how large", async () => {
  const s = await signVerdict(verdictReport(), options);
  const size = new TextEncoder().encode(s.text).length;
  assert.equal((await signVerdict(verdictReport(), { ...options, maxBytes: size })).text, s.text);
  await assert.rejects(
    signVerdict(verdictReport(), { ...options, maxBytes: size - 1 }),
    (e: Error) => {
      assert.ok(e instanceof InputError && e.code === "ENVELOPE_TOO_LARGE", String(e));
      assert.match(e.message, new RegExp(`would take ${size} bytes, over the ${size - 1} `));
      return true;
    },
  );
  // Never above what every checker reads.
  assert.equal(MAX_ENVELOPE_BYTES, 64 * 1024 * 1024);
  await signVerdict(verdictReport(), { ...options, maxBytes: 2 ** 40 });
});

Deno.test("signVerdict() given the trust root refuses a worker key check would refuse (a prover key, an inspector key revoked at the time) with WORKER_KEY_REFUSED, and signs the same bytes otherwise", async () => {
  const worker = await generateKeyPair();
  const prover = await generateKeyPair();
  const root = (edit: Record<string, unknown> = {}) => {
    const built = buildTrustRoot([key.publicKey, worker.publicKey], {
      start: "2026-01-01T00:00:00Z",
      provers: { keys: [prover.publicKey], start: "2026-01-01T00:00:00Z" },
    });
    const id = keyId(worker.publicKey);
    built.keys = built.keys.map((k) => k.keyid === id ? { ...k, ...edit } : k);
    return parseTrustRoot(JSON.stringify(built));
  };
  const report = verdictReport();
  const computedBy = (k: Uint8Array) => ({
    byResult: report.results.map(() => keyId(k)),
    keys: [k],
    reverified: [],
  });
  const refused = (why: RegExp) => (e: unknown) =>
    isCode(InputError, "WORKER_KEY_REFUSED")(e) &&
    /^Cannot sign the verdict: check with the trust root given would refuse its workers: worker key [0-9a-f]{16}…, which computed \d+ of the \d+ results, /
      .test((e as Error).message) &&
    why.test((e as Error).message);
  await assert.rejects(
    () =>
      signVerdict(report, { ...options, workers: computedBy(prover.publicKey), trustRoot: root() }),
    refused(/is a prover key of your trust root/),
  );
  const revoked = root({ revoked: { time: "2026-02-01T00:00:00Z", reason: "key compromise" } });
  await assert.rejects(
    () =>
      signVerdict(report, {
        ...options,
        workers: computedBy(worker.publicKey),
        trustRoot: revoked,
      }),
    refused(
      /is an inspector key of your trust root, revoked: key compromise at the verdict's time 2026-03-01T12:00:00Z/,
    ),
  );
  // Accepted: an inspector key of the root valid then, or a key the root does not list.
  const stranger = await generateKeyPair();
  for (const k of [worker.publicKey, stranger.publicKey]) {
    const plain = await signVerdict(report, { ...options, workers: computedBy(k) });
    const judged = await signVerdict(report, {
      ...options,
      workers: computedBy(k),
      trustRoot: root(),
    });
    assert.equal(judged.text, plain.text);
  }
});

Deno.test("signVerdict() given the trust root refuses signing keys check would count fewer of than it requires (SIGNING_KEY_REFUSED): not in the root, revoked, expired or not yet valid at the time; one valid co-signer signs the same bytes as without the root (review h184)", async () => {
  const other = await generateKeyPair();
  const root = (edit: Record<string, unknown> | null) => {
    const built = buildTrustRoot([key.publicKey, other.publicKey], {
      start: "2026-01-01T00:00:00Z",
    });
    const id = keyId(key.publicKey);
    built.keys = built.keys.flatMap((k) =>
      k.keyid !== id ? [k] : edit === null ? [] : [{ ...k, ...edit }]
    );
    return parseTrustRoot(JSON.stringify(built));
  };
  const report = verdictReport();
  const prefix = `^Cannot sign the verdict: check with the trust root given would count 0 valid ` +
    `inspector signature\\(s\\) of the 1 required: key ${keyId(key.publicKey).slice(0, 16)}… `;
  for (
    const [edit, why] of [
      [null, "is not in the trust root"],
      [{ revoked: { time: "2026-02-01T00:00:00Z", reason: "lost" } }, "is revoked: lost at"],
      [{ validFor: { start: "2026-01-01T00:00:00Z", end: "2026-02-01T00:00:00Z" } }, "is expired"],
      [{ validFor: { start: "2026-04-01T00:00:00Z" } }, "is not yet valid"],
    ] as const
  ) {
    await assert.rejects(
      () => signVerdict(report, { ...options, trustRoot: root(edit) }),
      (e: unknown) =>
        isCode(InputError, "SIGNING_KEY_REFUSED")(e) &&
        new RegExp(prefix + why).test((e as Error).message),
      why,
    );
  }
  // Check's default threshold is one signer: a key it does not count beside one it does signs.
  const plain = await signVerdict(report, { ...options, keys: [key, other] });
  const judged = await signVerdict(report, {
    ...options,
    keys: [key, other],
    trustRoot: root({ revoked: { time: "2026-02-01T00:00:00Z", reason: "lost" } }),
  });
  assert.equal(judged.text, plain.text);
});
