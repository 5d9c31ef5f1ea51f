import assert from "node:assert/strict";
import fc from "fast-check";
import { canonicalJson } from "../../src/claims/canonical_json.ts";
import { assertJsonSafe } from "../../src/claims/assert_json_safe.ts";

const RFC = new URL("../vectors/rfc/", import.meta.url);
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const read = (name: string) => Deno.readTextFileSync(new URL(name, RFC));

Deno.test("canonicalJson() matches RFC 8785 §3.2.3 when keys need UTF-16 sorting", () => {
  const input = JSON.parse(read("rfc8785_3.2.3_sorting_input.json"));
  const want = Deno.readFileSync(new URL("rfc8785_3.2.3_sorting_output.json", RFC));
  assert.deepEqual(canonicalJson(input), want);
});

Deno.test("canonicalJson() matches RFC 8785 §3.2.2 when not strict (sample has floats)", () => {
  const input = JSON.parse(read("rfc8785_3.2.2_sample_input.json"));
  assert.equal(
    text(canonicalJson(input, { strict: false })),
    read("rfc8785_3.2.2_sample_output.json"),
  );
});

Deno.test("canonicalJson() matches RFC 8785 §3.2.2 literals and string when strict", () => {
  const input = JSON.parse(read("rfc8785_3.2.2_sample_input.json"));
  delete input.numbers;
  const full = read("rfc8785_3.2.2_sample_output.json");
  const want = full.replace(/"numbers":\[[^\]]*\],/, "");
  assert.equal(text(canonicalJson(input)), want);
  assert.ok(want.startsWith('{"literals":[null,true,false],"string":"€$\\u000f\\nA'));
});

Deno.test("canonicalJson() refuses floats naming the JSON path when strict", () => {
  assert.throws(() => canonicalJson({ a: { b: [1, 2, 0.5] } }), (e: unknown) => {
    return e instanceof TypeError && e.message.includes("'$.a.b[2]'");
  });
  assert.throws(() => canonicalJson({ "weird key": 1.25 }), /\$\["weird key"\]/);
});

Deno.test("canonicalJson() refuses unsafe integers, undefined, functions and non-plain objects", () => {
  const bad: [unknown, string][] = [
    [{ n: 2 ** 53 }, "$.n"],
    [{ n: -(2 ** 53) }, "$.n"],
    [{ n: NaN }, "$.n"],
    [{ n: Infinity }, "$.n"],
    [{ u: undefined }, "$.u"],
    [[1, undefined], "$[1]"],
    [{ f: () => 1 }, "$.f"],
    [{ d: new Date(0) }, "$.d"],
    [{ m: new Map() }, "$.m"],
    [{ t: new Uint8Array(2) }, "$.t"],
    [{ big: 1n }, "$.big"],
    [{ s: Symbol("x") }, "$.s"],
    [{ [Symbol("k")]: 1 }, "$"],
    [{ s: "\ud800" }, "$.s"],
    [{ "\udc00": 1 }, "$"],
    // deno-lint-ignore no-sparse-arrays
    [[1, , 3], "$[1]"],
    [undefined, "$"],
  ];
  for (const [value, path] of bad) {
    assert.throws(() => canonicalJson(value), (e: unknown) => {
      return e instanceof TypeError && e.message.includes(`'${path}`);
    }, `expected refusal at ${path}`);
  }
});

Deno.test("canonicalJson() refuses cycles but accepts shared subtrees", () => {
  const cyc: Record<string, unknown> = { a: 1 };
  cyc.self = cyc;
  assert.throws(() => canonicalJson(cyc), TypeError);
  const shared = { x: 1 };
  assert.equal(text(canonicalJson({ a: shared, b: shared })), '{"a":{"x":1},"b":{"x":1}}');
});

Deno.test("canonicalJson() accepts the safe-integer limits and null-prototype objects", () => {
  const o = Object.create(null) as Record<string, unknown>;
  o.z = 2 ** 53 - 1;
  o.a = -(2 ** 53 - 1);
  assert.equal(text(canonicalJson(o)), '{"a":-9007199254740991,"z":9007199254740991}');
  assert.equal(text(canonicalJson(-0)), "0");
  assert.equal(text(canonicalJson("x")), '"x"');
});

Deno.test("canonicalJson() still refuses NaN with a TypeError when not strict", () => {
  assert.throws(() => canonicalJson({ a: NaN }, { strict: false }), TypeError);
  assert.throws(() => canonicalJson(undefined, { strict: false }), TypeError);
});

/** Rebuilds every object of a JSON value with its keys inserted in a shuffled order. */
function shuffleKeys(v: unknown, rnd: () => number): unknown {
  if (Array.isArray(v)) return v.map((x) => shuffleKeys(x, rnd));
  if (v === null || typeof v !== "object") return v;
  const keys = Object.keys(v);
  for (let i = keys.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [keys[i], keys[j]] = [keys[j] as string, keys[i] as string];
  }
  // fromEntries defines own properties, so a "__proto__" key stays a plain member.
  return Object.fromEntries(
    keys.map((k) => [k, shuffleKeys((v as Record<string, unknown>)[k], rnd)]),
  );
}

const strictJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.maxSafeInteger(),
    fc.string({ unit: "grapheme" }),
    fc.array(tie("value")),
    fc.dictionary(fc.string({ unit: "grapheme" }), tie("value")),
  ),
})).value;

Deno.test("canonicalJson() gives the same bytes whatever the key insertion order", () => {
  fc.assert(
    fc.property(strictJson, fc.integer(), (value, seed) => {
      let s = seed >>> 0;
      const rnd = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
      assert.deepEqual(canonicalJson(shuffleKeys(value, rnd)), canonicalJson(value));
    }),
    { numRuns: 300, seed: 8785 },
  );
});

Deno.test("canonicalJson() output parses back to an equal value", () => {
  fc.assert(
    fc.property(strictJson, (value) => {
      const back = JSON.parse(text(canonicalJson(value)));
      assert.deepEqual(canonicalJson(back), canonicalJson(value));
      assertJsonSafe(back);
    }),
    { numRuns: 300, seed: 1 },
  );
});
