/**
 * Issue 25: the inputs `check` gained (Sigstore bundles, policy flags) and the one output rule
 * (`--out` never written through a file) under attack: every refusal is coded, escaped, and
 * leaves the watched folder as it was.
 */
import assert from "node:assert/strict";
import { hostileTable, signedFixture } from "./_hostile.ts";
import { sigstoreBundle } from "../../src/attest/mod.ts";

const fx = await signedFixture();
const PAINT = "\u001b[2J\u001b[32mVALID\u202e";
const bundle = () =>
  Deno.readTextFile(fx.attestation).then((t) =>
    sigstoreBundle(JSON.parse(t)) as Record<string, unknown>
  );

async function write(dir: string, name: string, value: unknown): Promise<string> {
  const path = `${dir}/${name}`;
  await Deno.writeTextFile(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
}

hostileTable("check inputs", [
  {
    name: "a bundle with an unknown field named with escapes is refused, the name escaped",
    args: async (dir) => [
      "check",
      await write(dir, "b.json", { ...await bundle(), [PAINT]: 1 }),
      "--trust-root",
      fx.trustRoot,
    ],
    exit: 2,
    code: "BAD_ENVELOPE",
    check: (run) => assert.match(run.stderr, /unknown field/),
  },
  {
    name: "a bundle whose envelope repeats its payload key is refused (strict JSON)",
    args: async (dir) => {
      const text = JSON.stringify(await bundle()).replace(
        '"payload":',
        '"payload":"e30=","payload":',
      );
      return ["check", await write(dir, "b.json", text), "--trust-root", fx.trustRoot];
    },
    exit: 2,
    code: "BAD_ENVELOPE",
  },
  {
    name: "a bundle with escapes in its unsigned payloadType is INVALID, printed escaped",
    args: async (dir) => {
      const b = await bundle() as { dsseEnvelope: { payloadType: string } };
      b.dsseEnvelope.payloadType = PAINT;
      return ["check", await write(dir, "b.json", b), "--trust-root", fx.trustRoot];
    },
    exit: 1,
    check: (run) => {
      assert.match(run.stdout, /^INVALID attestation$/m);
      assert.ok(run.stdout.includes("\\u{1b}[2J\\u{1b}[32mVALID\\u{202e}"), run.stdout);
      assert.ok(!run.stdout.includes("\u202e"));
    },
  },
  {
    name: "a bundle whose envelope holds two signatures is refused (a bundle carries one)",
    args: async (dir) => {
      const b = await bundle() as { dsseEnvelope: { signatures: unknown[] } };
      b.dsseEnvelope.signatures = [b.dsseEnvelope.signatures[0], b.dsseEnvelope.signatures[0]];
      return ["check", await write(dir, "b.json", b), "--trust-root", fx.trustRoot];
    },
    exit: 2,
    code: "BAD_ENVELOPE",
    check: (run) => assert.match(run.stderr, /holds 2 entries, not 1/),
  },
  {
    name: "a payload of 200,000 '=' before one letter is refused at once (no regex backtracking)",
    args: async (dir) => {
      const env = JSON.parse(await Deno.readTextFile(fx.attestation));
      env.payload = "=".repeat(200_000) + "A";
      return ["check", await write(dir, "e.json", env), "--trust-root", fx.trustRoot];
    },
    exit: 2,
    code: "BAD_BASE64",
  },
  {
    name: "invisible and bidi format characters in an unknown field name are printed escaped",
    args: async (dir) => {
      const env = JSON.parse(await Deno.readTextFile(fx.attestation));
      env["x\u061c\u200b\u2060\ufeff\u00ad"] = 1;
      return ["check", await write(dir, "e.json", env), "--trust-root", fx.trustRoot];
    },
    exit: 2,
    code: "BAD_ENVELOPE",
    check: (run) => {
      assert.ok(run.stderr.includes("x\\u{61c}\\u{200b}\\u{2060}\\u{feff}\\u{ad}"), run.stderr);
      assert.ok(!/[\u061c\u200b\u2060\ufeff\u00ad]/.test(run.stderr));
    },
  },
  {
    name:
      "a trust root pinning a TSA anchor that is no certificate is refused (BAD_TRUST_ROOT), not the attestation",
    args: async (dir) => {
      const root = JSON.parse(await Deno.readTextFile(fx.trustRoot));
      root.tsa = [{ certificate: btoa("hello, not a certificate"), name: "x" }];
      return ["check", fx.attestation, "--trust-root", await write(dir, "root.json", root)];
    },
    exit: 2,
    code: "BAD_TRUST_ROOT",
    check: (run) =>
      assert.match(run.stderr, /'tsa\[0\]\.certificate' is not an X\.509 certificate/),
  },
  {
    name: "a trust root whose drand pins are not a list of chains is refused (BAD_TRUST_ROOT)",
    args: async (dir) => {
      const root = JSON.parse(await Deno.readTextFile(fx.trustRoot));
      root.drand = 5;
      return ["check", fx.attestation, "--trust-root", await write(dir, "root.json", root)];
    },
    exit: 2,
    code: "BAD_TRUST_ROOT",
  },
  {
    name: "a policy value holding escapes is refused with USAGE_POLICY, escaped",
    args: () => ["check", fx.attestation, "--trust-root", fx.trustRoot, "--require-verdict", PAINT],
    exit: 2,
    code: "USAGE_POLICY",
  },
  {
    name: "page --out an existing file is refused and the file is left as it was",
    args: async (dir) => ["page", "--out", await write(dir, "site", "mine")],
    exit: 2,
    code: "OUTPUT_EXISTS",
  },
  {
    name: "key generate --out under a file is refused, nothing written through it",
    args: async (dir) => ["key", "generate", "--out", `${await write(dir, "f", "mine")}/k`],
    exit: 2,
    code: "OUTPUT_WRITE",
  },
]);
