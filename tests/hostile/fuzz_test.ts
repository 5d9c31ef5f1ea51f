/**
 * Issue 19, part 8: property-based fuzzing of every parser that takes outside bytes, with a
 * fixed seed. Each parser either accepts or refuses with a coded error, within a time limit;
 * `deno task test:fuzz` runs the same properties 50 times longer.
 */
import fc from "fast-check";
import { fuzz, mutatedText } from "./_fuzz.ts";
import {
  encodeServingHistory,
  formatClaimLog,
  makeClaimRecord,
  parseClaimLog,
  parseServingHistory,
} from "../../src/claims/mod.ts";
import {
  buildTrustRoot,
  decodePrivateKeyPem,
  decodePublicKeyPem,
  encodePrivateKeyPem,
  encodePublicKeyPem,
  encodeStatement,
  generateKeyPair,
  parseEnvelope,
  parseStatement,
  parseTrustRoot,
  parseVerdictPredicate,
  signEnvelope,
} from "../../src/attest/mod.ts";
import { parseSafetensorsHeader } from "../../src/model/safetensors/parse_safetensors_header.ts";
import { parseScenario } from "../../src/prover/mod.ts";
import { recipeFromJson } from "../../src/resolve/mod.ts";
import { parseVectorText } from "../../src/assets/parse_vector_text.ts";
import { parseStrictJson, StrictJsonError } from "../../src/json_strict.ts";

const HEX = (c: string) => c.repeat(64);
const record = makeClaimRecord({
  log: { logId: "fuzz-log", seq: 0, prev: HEX("0") },
  hardware: { profile: "a100", profileSha256: HEX("a"), count: 8 },
  software: { stack: "pytorch-cublas-linear", components: { pytorch: "2.5.1" } },
  parallelism: { tp: 1, pp: 1, ep: 1, dp: 1 },
  batch: { size: 4 },
  workload: {
    kind: "gemm",
    m: 4,
    n: 8,
    k: 16,
    dtype: "bf16",
    out: "bf16",
    layout: "tn",
    kernel: { catalog: "demo", catalogSha256: HEX("b") },
    weights: { sha256: HEX("c"), shape: [8, 16] },
    input: { sha256: HEX("d"), shape: [4, 16] },
  },
  fingerprint: { tensor: "out", dtype: "bf16", shape: [4, 8], sha256: HEX("e") },
});
const key = await generateKeyPair();
const statement = {
  _type: "https://in-toto.io/Statement/v1" as const,
  subject: [{ name: "x", digest: { sha256: HEX("f") } }],
  predicateType: "https://example.com/p/v1",
  predicate: { a: [1, "b"] },
};
const envelope = await signEnvelope(encodeStatement(statement), {
  payloadType: "application/vnd.in-toto+json",
  keys: [key],
});
const root = `${new URL("../../", import.meta.url).pathname}`;

Deno.test("fuzz: claim log lines", () => {
  fuzz(mutatedText(formatClaimLog([record])), (t) => parseClaimLog(t), { runs: 600 });
});

Deno.test("fuzz: serving histories and sequence claim lines", () => {
  const history = new TextDecoder().decode(encodeServingHistory([
    {
      entries: [{ query: 3, cached: 0 }, { query: 1, cached: 9 }],
      self: 0,
      rows: 4,
      logitsRows: 2,
    },
    { entries: [{ query: 1, cached: 3 }], self: 0, rows: 1, logitsRows: 1, expertRows: [[1, 1]] },
  ]));
  fuzz(mutatedText(history), (t) => parseServingHistory(new TextEncoder().encode(t)), {
    runs: 400,
  });
  const sequence = makeClaimRecord({
    ...record.predicate,
    workload: {
      kind: "sequence",
      model: {
        type: "qwen3",
        checkpointSha256: HEX("1"),
        configSha256: HEX("2"),
        files: { "model.safetensors": HEX("3") },
      },
      kernel: { catalog: "demo", catalogSha256: HEX("b") },
      attention: { multiProcessorCount: 108 },
      history: { sha256: HEX("4"), passes: 2 },
      tokens: { prompt: [1, 2, 3], generated: [4, 5] },
      decoding: "greedy",
      positions: [3],
    },
    fingerprint: { tensor: "model.norm.out", dtype: "bf16", shape: [1, 256], sha256: HEX("e") },
  });
  fuzz(mutatedText(formatClaimLog([sequence])), (t) => parseClaimLog(t), { runs: 400 });
});

Deno.test("fuzz: DSSE envelopes", () => {
  fuzz(mutatedText(JSON.stringify(envelope, null, 2)), (t) => parseEnvelope(t), { runs: 400 });
});

Deno.test("fuzz: trust roots", () => {
  const text = JSON.stringify(buildTrustRoot([key.publicKey], { start: "2026-01-01T00:00:00Z" }));
  fuzz(mutatedText(text), (t) => parseTrustRoot(t), { runs: 400 });
});

Deno.test("fuzz: PEM private and public keys", () => {
  fuzz(mutatedText(encodePrivateKeyPem(key.privateKey)), (t) => decodePrivateKeyPem(t), {
    runs: 200,
  });
  fuzz(mutatedText(encodePublicKeyPem(key.publicKey)), (t) => decodePublicKeyPem(t), {
    runs: 200,
  });
});

Deno.test("fuzz: in-toto statements and verdict predicates", () => {
  fuzz(
    mutatedText(JSON.stringify(statement)),
    (t) => parseStatement(new TextEncoder().encode(t)),
    { runs: 200 },
  );
  fuzz(
    mutatedText('{"verifier":{"id":"bitaudit"},"results":[],"verdict":"PASSED"}'),
    (t) => parseVerdictPredicate(JSON.parse(t)),
    { runs: 200, allowed: [SyntaxError] },
  );
});

Deno.test("fuzz: safetensors headers", () => {
  const header = '{"a":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]},' +
    '"__metadata__":{"k":"v"}}';
  fuzz(
    mutatedText(header),
    (t) => parseSafetensorsHeader(new TextEncoder().encode(t), { bufferBytes: 12 }),
    { runs: 400 },
  );
});

Deno.test("fuzz: scenario and recipe JSON", async () => {
  const scenario = await Deno.readTextFile(`${root}demo/scenario.json`);
  // The command wraps the readers' TypeError / RangeError as SCENARIO_INVALID (exit 2).
  fuzz(mutatedText(scenario), (t) => parseScenario(parseStrictJson(t)), {
    runs: 300,
    allowed: [StrictJsonError, TypeError, RangeError],
  });
  const recipe = await Deno.readTextFile(`${root}profiles/recipes/cublas-serial-split-k2.json`);
  fuzz(mutatedText(recipe), (t) => recipeFromJson(parseStrictJson(t), "fuzz.json"), {
    runs: 300,
    allowed: [StrictJsonError],
  });
});

Deno.test("fuzz: measured-vector text files", () => {
  const hex = "3f800000 40000000 \nbf800000 00000001 \n";
  fuzz(mutatedText(hex), (t) => parseVectorText(t, { file: "a", kind: "hex" }), { runs: 200 });
  const bin = `${"0".repeat(31)}1\n${"1".repeat(32)}\n`;
  fuzz(mutatedText(bin), (t) => parseVectorText(t, { file: "d", kind: "binary" }), { runs: 200 });
});

Deno.test("fuzz: arbitrary bytes as a claim log", () => {
  fuzz(
    fc.uint8Array({ maxLength: 300 }).map((b) => new TextDecoder().decode(b)),
    (t) => parseClaimLog(t),
    { runs: 200 },
  );
});
