/** `parseStrictJson()`: the strictness rules of the one JSON kit (issue 19, part 1). */
import assert from "node:assert/strict";
import { type JsonKind, parseStrictJson, StrictJsonError } from "../src/json_strict.ts";
import { printedInSmallHeap } from "./_small_heap.ts";

const REFUSED: readonly [string, string, boolean][] = [
  ['{"a":1,"a":1}', "duplicate key 'a'", true],
  ['{"a":{"b":[{"c":1,"c":2}]}}', "duplicate key 'c'", true],
  ['{"a":8.0}', "non-integer number form '8.0'", true],
  ['{"a":8e0}', "non-integer number form '8e0'", true],
  ['{"a":-0}', "negative zero", true],
  ['{"a":9007199254740992}', "integer '9007199254740992' beyond 2^53 - 1", true],
  ['{"a":"\\ud800"}', "lone surrogate in string", true],
  ['{"\\udc00":1}', "lone surrogate in string", true],
  ['\ufeff{"a":1}', "byte-order mark", true],
  ['{"a":1}\r', "carriage return", true],
  ["[".repeat(65) + "]".repeat(65), "nesting deeper than 64", true],
  ['{"a":01}', "expected ',' or '}'", false],
  ['{"a":"x\ny"}', "control character in string", false],
  ['{"a":1,}', "expected a key", false],
  ['{"a":1} x', "text after the value", false],
  ['{"a":"\\x"}', "bad escape", false],
  ["", "unexpected end", false],
];

Deno.test("parseStrictJson() refuses each strictness rule and grammar error with its reason", () => {
  for (const [text, reason, strict] of REFUSED) {
    assert.throws(() => parseStrictJson(text), (e) => {
      assert.ok(e instanceof StrictJsonError, text);
      assert.equal(e.reason, reason, text);
      assert.equal(e.strict, strict, text);
      return true;
    });
  }
});

Deno.test("parseStrictJson() agrees with JSON.parse on strict documents", () => {
  for (
    const text of [
      '{"a":[1,-2,"x\\u00e9\\ud83d\\ude00",true,false,null,{}],"b":{"c":[]}}',
      ' \t\n{ "__proto__" : 1 }\n',
      "9007199254740991",
    ]
  ) {
    assert.deepEqual(parseStrictJson(text), JSON.parse(text));
  }
  const v = parseStrictJson('{"__proto__":{"x":1}}') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.deepEqual(Object.keys(v), ["__proto__"]);
  assert.equal(parseStrictJson("[1.5e3]", { fractions: true }) instanceof Array, true);
});

Deno.test("parseStrictJson() names the JSON path of a refusal at every depth", () => {
  const cases: readonly [string, string][] = [
    ['{"a":{"b":[0,1,{"c":1,"c":2}]}}', "$.a.b[2]"],
    ['{"a":[[1,2],[3,8.5]]}', "$.a[1][1]"],
    ['{"a":1,"b" 2}', "$.b"],
    ['{"a":[1,2 3]}', "$.a"],
    ['{"k":{"x":"\\q"}}', "$.k.x"],
    ['{"__proto__":1,"__proto__":2}', "$"],
    ["[1,-0]", "$[1]"],
  ];
  for (const [text, path] of cases) {
    assert.throws(() => parseStrictJson(text), (e) => {
      assert.ok(e instanceof StrictJsonError, text);
      assert.equal(e.path, path, text);
      return true;
    });
  }
});

Deno.test("parseStrictJson() reads integers of every length as JSON.parse does, or refuses them", () => {
  const accepted = ["0", "7", "10", "999999999999999", "1000000000000000", "123456789012345"];
  accepted.push("9007199254740991", "-9007199254740991", "-1", "4503599627370496");
  for (const lit of accepted) {
    assert.deepEqual(parseStrictJson(`[${lit}, ${lit}]`), JSON.parse(`[${lit}, ${lit}]`), lit);
  }
  for (let digits = 1; digits <= 17; digits++) {
    const lit = "9".repeat(digits);
    const v = Number(lit);
    if (Number.isSafeInteger(v)) assert.equal(parseStrictJson(lit), v, lit);
    else assert.throws(() => parseStrictJson(lit), StrictJsonError, lit);
  }
  for (const lit of ["00", "01", "1.0", "1e2", "1E2", "12345678901234567890", "-0", "+1"]) {
    assert.throws(() => parseStrictJson(`[${lit}]`), StrictJsonError, lit);
  }
});

Deno.test("parseStrictJson() asks admit before each value and stops at its first refusal, before reading on", () => {
  const seen: string[] = [];
  const admit = (path: readonly (string | number)[], kind: JsonKind) => {
    seen.push(`${path.join("/")} ${kind}`);
    return path[0] === "b" ? "no b here" : undefined;
  };
  const text = '{"a":[-1,{"c":"x"}, [true]]}';
  assert.deepEqual(parseStrictJson(text, { admit }), { a: [-1, { c: "x" }, [true]] });
  assert.deepEqual(seen, [
    " object",
    "a array",
    "a/0 number",
    "a/1 object",
    "a/1/c string",
    "a/2 array",
    "a/2/0 other",
  ]);
  // The text after the refused value is never read (here it is not even JSON).
  assert.throws(() => parseStrictJson('{"a":1,"b":[1,2,3] this is not JSON', { admit }), (e) => {
    assert.ok(e instanceof StrictJsonError);
    assert.equal(e.reason, "no b here");
    assert.equal(e.path, "$.b");
    assert.equal(e.strict, true);
    return true;
  });
});

Deno.test("parseStrictJson() refuses a text with more values than maxValues, naming where", () => {
  assert.deepEqual(parseStrictJson("[1,[2,3]]", { maxValues: 5 }), [1, [2, 3]]);
  assert.throws(() => parseStrictJson('{"a":[1,[2,3]]}', { maxValues: 5 }), (e) => {
    assert.ok(e instanceof StrictJsonError);
    assert.equal(e.reason, "more than 5 values");
    assert.equal(e.path, "$.a[1][1]");
    assert.equal(e.strict, true);
    return true;
  });
});

Deno.test("parseStrictJson(): `carriageReturns` reads CR as whitespace; `fractions` as a function allows number forms by path", () => {
  assert.deepEqual(parseStrictJson('\r{"a":\r\n1}\r', { carriageReturns: true }), { a: 1 });
  const byPath = { fractions: (p: readonly (string | number)[]) => p[0] === "free" };
  assert.deepEqual(parseStrictJson('{"free":[1.5,-0,2e3],"n":[4]}', byPath), {
    free: [1.5, -0, 2000],
    n: [4],
  });
  assert.throws(
    () => parseStrictJson('{"free":1.5,"n":[4.0]}', byPath),
    (e) => e instanceof StrictJsonError && e.path === "$.n[0]" && e.strict,
  );
});

Deno.test("parseStrictJson() refuses a number past the double range even where fractions are allowed (review h96)", () => {
  for (const text of ['{"p": 1e309}', "[-1e400]", '{"a": [0.5, 123e999]}']) {
    assert.throws(
      () => parseStrictJson(text, { fractions: true }),
      (e: unknown) =>
        e instanceof StrictJsonError && e.strict && /beyond the double range/.test(e.reason),
      text,
    );
  }
  // The largest double and a tiny value that reads as 0 are JSON numbers as any parser reads them.
  assert.deepEqual(parseStrictJson("[1.7976931348623157e308, 1e-400]", { fractions: true }), [
    1.7976931348623157e308,
    0,
  ]);
});

Deno.test("parseStrictJson() decodes a string of escapes as one string, not a piece per escape (review h115)", async () => {
  // 4,000,000 `\n` escapes: 8 MB of text, a 4 MB string; built a piece per escape it was a rope
  // of 4,000,000 nodes (over 80 MB), past this 64 MiB heap (a 256 MiB log line took ~4.4 GB).
  const mod = new URL("../src/json_strict.ts", import.meta.url).href;
  const code = `const { parseStrictJson } = await import(${JSON.stringify(mod)});
    const v = parseStrictJson('["' + "\\\\n".repeat(4_000_000) + '"]');
    console.log(v[0].length, /^\\n*$/.test(v[0]));`;
  assert.equal(await printedInSmallHeap(code), "4000000 true");
});

Deno.test("parseStrictJson() reads every escape as JSON.parse does and refuses a bad one where it stands", () => {
  const strings = [
    '"\\"\\\\\\/\\b\\f\\n\\r\\t"',
    '"a\\u00e9b\\u00E9\\uD83D\\uDE00c"',
    '"\ud83d\\ude00"', // a raw high surrogate and an escaped low one make one pair
    '"plain, no escape at all"',
    '""',
  ];
  for (const s of strings) {
    assert.equal(parseStrictJson(s), JSON.parse(s), s);
    assert.deepEqual(parseStrictJson(`{${s}:[${s}]}`), JSON.parse(`{${s}:[${s}]}`), s);
  }
  const refused: readonly [string, string, number][] = [
    ['["ab\\u12"]', "bad escape", 6],
    ['["ab\\u12g4"]', "bad escape", 6],
    ['["\\u\u0010\u0011\u0012\u0013"]', "bad escape", 4],
    ['["\\U0041"]', "bad escape", 4],
    ['["\\', "bad escape", 4],
    ['["\\n', "unterminated string", 4],
    ['["\\n\u0001"]', "control character in string", 4],
    ['["x\\ud800y"]', "lone surrogate in string", 11],
    ['["\\udc00\\ud800"]', "lone surrogate in string", 15],
  ];
  for (const [text, reason, offset] of refused) {
    assert.throws(() => parseStrictJson(text), (e) => {
      assert.ok(e instanceof StrictJsonError, text);
      assert.deepEqual([e.reason, e.offset, e.path], [reason, offset, "$[0]"], text);
      return true;
    });
  }
});
