import assert from "node:assert/strict";
import {
  encodeStatement,
  parseStatement,
  type Statement,
  STATEMENT_TYPE,
} from "../../src/attest/statement.ts";
import { InputError } from "../../src/errors.ts";
import { isCode } from "../_assert_code.ts";

const enc = new TextEncoder();
const good: Statement = {
  _type: STATEMENT_TYPE,
  subject: [{ name: "claim:log/0", digest: { sha256: "ab".repeat(32), sha512: "cd".repeat(64) } }],
  predicateType: "https://bitaudit.example/inference-claim/v1",
  predicate: { pDetect: 0.96 },
};
const bad = (c: unknown) => () => parseStatement(enc.encode(JSON.stringify(c)));
const isBad = isCode(InputError, "BAD_STATEMENT");

Deno.test("parseStatement() accepts a v1 statement and keeps unknown fields when present", () => {
  const st = parseStatement(enc.encode(JSON.stringify({ ...good, futureField: [1] })));
  assert.equal(st.subject[0]!.digest.sha256, "ab".repeat(32));
  assert.equal((st as unknown as { futureField: number[] }).futureField[0], 1);
  const noPredicate = { ...good, predicate: undefined };
  assert.equal(parseStatement(enc.encode(JSON.stringify(noPredicate))).predicate, undefined);
});

Deno.test("parseStatement() round-trips encodeStatement() output", () => {
  assert.deepEqual(parseStatement(encodeStatement(good)), good);
});

Deno.test("parseStatement() throws BAD_STATEMENT when required parts are wrong", () => {
  const s0 = good.subject[0]!;
  const cases: unknown[] = [
    [],
    { ...good, _type: "https://in-toto.io/Statement/v0.1" },
    { ...good, subject: [] },
    { ...good, subject: "x" },
    { ...good, subject: [{ digest: s0.digest }] },
    { ...good, subject: [{ name: "a" }] },
    { ...good, subject: [{ name: "a", digest: { sha512: "cd".repeat(64) } }] },
    { ...good, subject: [{ name: "a", digest: { sha256: "AB".repeat(32) } }] },
    { ...good, subject: [{ name: "a", digest: { sha256: "ab".repeat(31) } }] },
    { ...good, subject: [{ name: "a", digest: { sha256: "ab".repeat(32), md5: 5 } }] },
    { ...good, predicateType: "" },
    { ...good, predicateType: undefined },
    { ...good, predicate: [1] },
    { ...good, predicate: "x" },
  ];
  for (const c of cases) assert.throws(bad(c), isBad, JSON.stringify(c).slice(0, 90));
  assert.throws(() => parseStatement(Uint8Array.of(0xff, 0xfe)), isBad);
  assert.throws(() => parseStatement(enc.encode("{")), isBad);
});
