/**
 * Refusals name what is wrong with the value: a checkpoint tree size past 2^53 - 1 is too large
 * (not "not a decimal integer"), and a config number past the largest double is not finite (not
 * "got 'null'", which is what JSON writes for it).
 */
import assert from "node:assert/strict";
import { assertCliCode } from "../_assert_code.ts";
import { tempDir } from "../_temp.ts";
import { modelSynth, REPO_ROOT, runBitaudit } from "./_run.ts";

const dir = await tempDir({ prefix: "bitaudit-messages-" });

Deno.test("claims consistency says a checkpoint tree size past 2^53 - 1 is too large", async () => {
  const cp = `${dir}/cp.txt`;
  const log = `${dir}/missing.jsonl`; // never read: the checkpoint is refused first
  const note = [
    "a/b",
    "9007199254740993",
    "Nimi4zjBwi+tuK0iJtt3te6szFvDvEdpta69VGwgCjo=",
    "",
    "\u2014 a/b AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==",
    "",
  ].join("\n");
  await Deno.writeTextFile(cp, note);
  const r = await runBitaudit(["claims", "consistency", "--old", cp, "--new", cp, "--log", log]);
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "BAD_CHECKPOINT");
  assert.match(r.stderr, /tree size '9007199254740993' is too large/);
});

Deno.test("model synth says a config number too large for a double is not finite", async () => {
  const text = await Deno.readTextFile(`${REPO_ROOT}/tables/models/qwen3-tiny-dense/config.json`);
  const config = `${dir}/config.json`;
  await Deno.writeTextFile(config, text.replace(/"rope_theta": *[0-9.e+]+/, '"rope_theta": 1e400'));
  const r = await modelSynth(config, `${dir}/m`);
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "CONFIG_FIELD");
  assert.match(r.stderr, /rope_theta .*'Infinity' \(not a finite number\)/);
  assert.doesNotMatch(r.stderr, /null/);
});

Deno.test("check says a trust root given as the attestation is one, not an unknown field of a Sigstore bundle (review h148)", async () => {
  const root = `${dir}/trust-root.json`;
  await Deno.writeTextFile(
    root,
    JSON.stringify({ mediaType: "application/vnd.bitaudit.trustroot.v1+json", keys: [] }),
  );
  const r = await runBitaudit(["check", root, "--trust-root", root]);
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "BAD_ENVELOPE");
  assert.match(
    r.stderr,
    /Cannot read attestation: not an attestation: this is a trust root \(give it as the trust root, with --trust-root\)/,
  );
  assert.doesNotMatch(r.stderr, /Sigstore bundle/);
  // Another object with a media type is no bundle either: it gets an envelope's error.
  const other = `${dir}/other.json`;
  await Deno.writeTextFile(other, JSON.stringify({ mediaType: "application/json", a: 1 }));
  const o = await runBitaudit(["check", other, "--trust-root", root]);
  assert.equal(o.code, 2, o.stderr);
  assertCliCode(o.stderr, "BAD_ENVELOPE");
  assert.match(o.stderr, /Cannot read envelope: 'envelope\.mediaType' unknown field/);
});
