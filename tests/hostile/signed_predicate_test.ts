/**
 * A verdict predicate a trusted inspector key signed is still only the inspector's word: `check`
 * bounds its sizes before allocating (a k of 2^53 - 1 is not drawn), recomputes its detection
 * statement, and never recomputes from a log that is not the attested one. A trust root is
 * bounded too (every signature is tried against every key its hint does not name).
 */
import assert from "node:assert/strict";
import { hostileTable, signedFixture } from "./_hostile.ts";
import {
  buildTrustRoot,
  decodeBase64,
  decodePrivateKeyPem,
  decodePublicKeyPem,
  generateKeyPair,
  MAX_TRUST_ROOT_KEYS,
  publicKeyFromPrivate,
  signEnvelope,
} from "../../src/attest/mod.ts";

const fx = await signedFixture(6);
const original = JSON.parse(await Deno.readTextFile(fx.attestation));
const statement = JSON.parse(new TextDecoder().decode(decodeBase64(original.payload)));
const privateKey = decodePrivateKeyPem(await Deno.readTextFile(fx.key));
const key = { privateKey, publicKey: await publicKeyFromPrivate(privateKey) };

/** The attestation's statement edited and signed again by the trusted inspector key. */
async function resigned(dir: string, edit: (st: typeof statement) => void): Promise<string> {
  const st = structuredClone(statement);
  edit(st);
  const env = await signEnvelope(new TextEncoder().encode(JSON.stringify(st)), {
    payloadType: original.payloadType,
    keys: [key],
  });
  const path = `${dir}/resigned.dsse.json`;
  await Deno.writeTextFile(path, JSON.stringify(env));
  return path;
}

hostileTable("signed predicate", [
  {
    name: "the statement re-signed unchanged is VALID (the fixture is sound)",
    args: async (dir) => ["check", await resigned(dir, () => {}), "--trust-root", fx.trustRoot],
    exit: 0,
  },
  {
    name: "a signed k of 2^53 - 1 is refused at once, not drawn index by index",
    args: async (dir) => [
      "check",
      await resigned(dir, (st) => {
        st.predicate.audit.k = Number.MAX_SAFE_INTEGER;
        st.predicate.audit.population = Number.MAX_SAFE_INTEGER;
      }),
      "--trust-root",
      fx.trustRoot,
    ],
    exit: 1,
    check: (run) => {
      assert.match(run.stdout, /^INVALID attestation$/m);
      assert.match(run.stdout, /^FAIL sample: k 9007199254740991 but 2 selected indices$/m);
    },
  },
  {
    name: "an inflated detection statement is INVALID with the recomputed probability",
    args: async (dir) => [
      "check",
      await resigned(dir, (st) => {
        for (const l of st.predicate.detection.levels) l.hypergeometric = "0.999999";
      }),
      "--trust-root",
      fx.trustRoot,
    ],
    exit: 1,
    check: (run) => {
      assert.match(run.stdout, /^INVALID attestation$/m);
      assert.match(
        run.stdout,
        /^FAIL detection: at rate 0\.001 the hypergeometric detection probability is stated as 0\.999999, recomputed 0\.\d{6}$/m,
      );
    },
  },
  {
    name: "a detection statement for another population is INVALID",
    args: async (dir) => [
      "check",
      await resigned(dir, (st) => {
        st.predicate.detection.population = 5_000_000;
      }),
      "--trust-root",
      fx.trustRoot,
    ],
    exit: 1,
    check: (run) => assert.match(run.stdout, /^FAIL detection: .* of 5000000 records/m),
  },
  {
    name: "check --recompute with a shorter log fails the log checks and recomputes nothing",
    args: async (dir) => {
      const lines = (await Deno.readTextFile(fx.log)).split("\n").filter((l) => l !== "");
      await Deno.writeTextFile(`${dir}/claims.jsonl`, lines.slice(0, 2).join("\n") + "\n");
      return [
        "check",
        fx.attestation,
        "--trust-root",
        fx.trustRoot,
        "--log",
        `${dir}/claims.jsonl`,
        "--blobs",
        `${fx.log.slice(0, fx.log.lastIndexOf("/"))}/blobs`,
        "--recompute",
      ];
    },
    exit: 1,
    check: (run) => {
      assert.match(run.stdout, /^FAIL log-size: 2 records, the attested population \d+$/m);
      assert.match(run.stdout, /^FAIL recompute: skipped: the claim log is not the attested one$/m);
      assert.doesNotMatch(run.stdout, /recompute\[/);
    },
  },
  {
    name: `a trust root listing more than ${MAX_TRUST_ROOT_KEYS} keys is refused as the trust root`,
    args: async (dir) => {
      const keys = [decodePublicKeyPem(await Deno.readTextFile(fx.pub))];
      while (keys.length < MAX_TRUST_ROOT_KEYS) keys.push((await generateKeyPair()).publicKey);
      const start = { start: "2026-01-01T00:00:00Z" };
      const root = buildTrustRoot(keys, start); // the most a root may list
      assert.throws(() => buildTrustRoot([...keys, keys[1]!], start), /65 keys, more than 64/);
      // One more entry, written by hand.
      root.keys.push(buildTrustRoot([(await generateKeyPair()).publicKey], start).keys[0]!);
      await Deno.writeTextFile(`${dir}/root.json`, JSON.stringify(root));
      return ["check", fx.attestation, "--trust-root", `${dir}/root.json`];
    },
    exit: 2,
    code: "BAD_TRUST_ROOT",
    check: (run) => assert.match(run.stderr, /lists 65 keys, more than 64/),
  },
]);
