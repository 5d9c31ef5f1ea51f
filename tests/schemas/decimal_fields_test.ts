/**
 * The decimal text fields of block records (`rmsNormEps`, `attention.rope.theta`): the schema
 * and the parser bound them to the same length, and the schema's patterns are linear. Regression:
 * `rmsNormEps` was checked with `[0-9]*[1-9][0-9]*` and no length, so `claims validate` took 53 s
 * (quadratic backtracking) on a 200,000-character "11...1x".
 */
import assert from "node:assert/strict";
import {
  BLOCK_WEIGHT_NAMES,
  GENESIS_PREV,
  makeClaimRecord,
  MAX_DECIMAL_CHARS,
  parseClaimRecord,
} from "../../src/claims/mod.ts";
import { InputError } from "../../src/errors.ts";
import { parseStrictJson } from "../../src/json_strict.ts";
import { SCHEMAS, validator } from "./_schemas.ts";

const H = "ab".repeat(32);

/** An attention-block record with the two decimal fields given. */
function record(rmsNormEps: string, theta: string): unknown {
  return makeClaimRecord({
    log: { logId: "decimals", seq: 0, prev: GENESIS_PREV },
    hardware: { profile: "a100", profileSha256: H, count: 1 },
    software: { stack: "s", components: {} },
    parallelism: { tp: 1, pp: 1, ep: 1, dp: 1 },
    batch: { size: 1 },
    workload: {
      kind: "attention_block",
      tokens: 4,
      shape: { hidden: 64, intermediate: 128, heads: 4, kvHeads: 2, headDim: 16 },
      rmsNormEps,
      kernel: { recipe: { family: "single_walk" } },
      weights: Object.fromEntries(BLOCK_WEIGHT_NAMES.attention_block.map((n) => [n, H])),
      input: { sha256: H, shape: [4, 64] },
      attention: { multiProcessorCount: 108, rope: { theta } },
    } as never,
    fingerprint: { tensor: "y", dtype: "bf16", shape: [4, 64], sha256: H },
  });
}

const schemaAccepts = (r: unknown) => validator("claim-record")(r);
function parserAccepts(r: unknown): boolean {
  try {
    parseClaimRecord(parseStrictJson(JSON.stringify(r)), "decimals");
    return true;
  } catch (e) {
    if (e instanceof InputError) return false;
    throw e;
  }
}

/** The language `rmsNormEps` had before (a nonzero digit somewhere), as a reference. */
const POSITIVE = /^(?:[0-9]*[1-9][0-9]*(?:\.[0-9]+)?|[0-9]+\.[0-9]*[1-9][0-9]*)(?:e-?[0-9]+)?$/;

/** Every text of 1..`n` characters over `alphabet`. */
function* texts(alphabet: readonly string[], n: number): Generator<string> {
  let level = [""];
  for (let len = 1; len <= n; len++) {
    level = level.flatMap((t) => alphabet.map((c) => t + c));
    yield* level;
  }
}

Deno.test("decimal fields: the schema accepts what it did on short texts, and refuses nothing the parser accepts", () => {
  assert.ok(schemaAccepts(record("1e-6", "1000000")) && parserAccepts(record("1e-6", "1000000")));
  for (const t of texts(["0", "1", ".", "e", "-"], 6)) {
    const eps = record(t, "10000");
    assert.equal(schemaAccepts(eps), POSITIVE.test(t), `rmsNormEps '${t}'`);
    if (!schemaAccepts(eps)) assert.ok(!parserAccepts(eps), `rmsNormEps '${t}'`);
    const theta = record("1e-6", t);
    if (!schemaAccepts(theta)) assert.ok(!parserAccepts(theta), `theta '${t}'`);
  }
});

Deno.test("decimal fields: the schema and the parser refuse a text longer than MAX_DECIMAL_CHARS", () => {
  const claim = SCHEMAS["claim-record"] as { $defs: Record<string, unknown> };
  const defs = JSON.stringify(claim.$defs);
  assert.equal(defs.match(/"maxLength":(\d+)/g)?.filter((m) => m.endsWith(":64")).length, 3);
  assert.equal(MAX_DECIMAL_CHARS, 64);
  const longest = `2.${"0".repeat(MAX_DECIMAL_CHARS - 2)}`; // theta must exceed 1
  for (const r of [record(longest, "10000"), record("1e-6", longest)]) {
    assert.ok(schemaAccepts(r) && parserAccepts(r));
  }
  for (const text of [`${longest}1`, `${"1".repeat(200_000)}x`, "1".repeat(200_000)]) {
    for (const r of [record(text, "10000"), record("1e-6", text)]) {
      assert.ok(!schemaAccepts(r), text.slice(0, 80));
      assert.ok(!parserAccepts(r), text.slice(0, 80));
    }
  }
});
