/**
 * The JSON kit's array readers on arrays a caller built by hand (no parsed JSON array has a hole):
 * a hole, or a `length` set past the items, is refused, as is a length over the bound, before any
 * item is read; the items come back in a fresh array, each read once.
 */
import assert from "node:assert/strict";
import { arr, fieldsOf, ints, strings } from "../src/json_fields.ts";

/** `[<n empty items>]`. */
function holes(n: number): unknown[] {
  const a: unknown[] = [];
  a.length = n;
  return a;
}

Deno.test("arr(), ints() and strings() refuse an array with a hole, naming the index", () => {
  const holed = [1, 2, 3];
  delete holed[1];
  for (const xs of [holed, holes(3), Object.assign(holes(3), [1, 2])]) {
    const f = fieldsOf({ xs }, "p");
    assert.throws(
      () => arr(f, "xs"),
      (e) => e instanceof RangeError && /'p\.xs\[\d\]'/.test(e.message),
    );
    assert.throws(() => ints(f, "xs", { min: 0, max: 9 }), RangeError);
  }
  assert.throws(() => strings(fieldsOf({ s: ["a", , "c"] }, "p"), "s"), /'p\.s\[1\]'/);
});

Deno.test("arr() refuses a length over its bound before reading an item", () => {
  let reads = 0;
  const tracked = new Proxy(holes(2 ** 32 - 1), {
    get: (t, k, r) => (typeof k === "string" && /^\d+$/.test(k) && reads++, Reflect.get(t, k, r)),
  });
  const f = fieldsOf({ xs: tracked }, "p");
  assert.throws(
    () => arr(f, "xs"),
    (e) => e instanceof RangeError && /at most 16777216 items, got 4294967295/.test(e.message),
  );
  assert.equal(reads, 0);
  const three = fieldsOf({ xs: [1, 2, 3] }, "p");
  assert.throws(() => arr(three, "xs", { max: 2 }), /at most 2 items, got 3/);
  assert.equal(arr(three, "xs", { max: 3 }).length, 3);
});

Deno.test("arr() returns a copy whose items were each read once: what was checked is what is kept", () => {
  let reads = 0;
  const s = ["x"];
  // A string when strings() checks it, a number on any later read.
  Object.defineProperty(s, 0, { get: () => reads++ === 0 ? "a" : 5, enumerable: true });
  const got = strings(fieldsOf({ s }, "p"), "s");
  assert.equal(got[0], "a");
  assert.equal(got[0], "a");
  assert.equal(reads, 1);
  const xs = [1, 2];
  assert.notEqual(arr(fieldsOf({ xs }, "p"), "xs"), xs);
  assert.deepEqual(arr(fieldsOf({ xs }, "p"), "xs"), xs);
});
