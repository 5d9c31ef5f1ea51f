/**
 * refuseProverKey over several prover keys at once (a trust root may list more than one): a key
 * in use that is any of them is refused, named with the first prover key listed that is in use.
 */
import assert from "node:assert/strict";
import { keyId } from "../../src/attest/mod.ts";
import { UsageError } from "../../src/errors.ts";
import { type KeyInUse, refuseProverKey } from "../../src/cli/refuse_prover_key.ts";

const key = (byte: number) => new Uint8Array(32).fill(byte);
const use = (byte: number, path: string): KeyInUse => ({
  publicKey: key(byte),
  option: "--worker-pub",
  path,
});
const provers = [
  { publicKey: key(1), from: "a prover key of --trust-root 'a.json'" },
  { publicKey: key(2), from: "a prover key of --trust-root 'b.json'" },
];

Deno.test("refuseProverKey() refuses a key in use that is any of the prover keys given", () => {
  assert.throws(
    () => refuseProverKey(provers, [use(3, "w3.pub"), use(2, "w2.pub")]),
    (e: unknown) =>
      e instanceof UsageError && e.code === "USAGE_KEYS" &&
      e.message.includes("--worker-pub 'w2.pub'") &&
      e.message.includes(keyId(key(2)).slice(0, 16)) && e.message.includes("'b.json'"),
  );
  // Two prover keys in use: the first prover key listed is named, with the first key that is it.
  assert.throws(
    () => refuseProverKey(provers, [use(2, "w2.pub"), use(1, "w1.pub"), use(1, "copy.pub")]),
    (e: unknown) =>
      e instanceof UsageError && e.message.includes("--worker-pub 'w1.pub'") &&
      e.message.includes("'a.json'"),
  );
});

Deno.test("refuseProverKey() refuses nothing when no key in use is a prover key given", () => {
  refuseProverKey(provers, [use(3, "w3.pub"), use(4, "w4.pub")]);
  refuseProverKey([], [use(1, "w1.pub")]);
});
