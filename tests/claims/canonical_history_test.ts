/**
 * The fast reader of canonical history bytes against the generic strict check: on random valid
 * histories (with and without MoE expert rows and a cascade prefix, values at their bounds) and
 * on thousands of mutations of their bytes, both accept the same blobs with the same passes, and
 * the fast reader declines (null) everything the generic check refuses.
 */
import assert from "node:assert/strict";
import { type HistoryBounds, readCanonicalHistory } from "../../src/claims/_canonical_history.ts";
import {
  encodeServingHistory,
  type HistoryPass,
  MAX_HISTORY_ENTRIES,
  MAX_HISTORY_PASSES,
  parseServingHistory,
  parseServingHistoryGeneric,
  SERVING_HISTORY_SCHEMA,
} from "../../src/claims/serving_history.ts";
import { InputError } from "../../src/errors.ts";

/** A seeded generator (xorshift32), so a failure names its case. */
function _rng(seed: number) {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  return {
    below: (n: number) => next() % n,
    /** A value in 0..max, often at an edge (0, 1, max - 1, max). */
    value: (max: number) => {
      const r = next() % 6;
      return r === 0
        ? 0
        : r === 1
        ? Math.min(1, max)
        : r === 2
        ? max
        : r === 3
        ? Math.max(0, max - 1)
        : next() % (max + 1);
    },
  };
}

function _history(seed: number): HistoryPass[] {
  const r = _rng(seed);
  const moe = r.below(3) === 0;
  const layers = r.below(3);
  return Array.from({ length: r.below(5) }, () => {
    const entries = Array.from({ length: 1 + r.below(5) }, () => ({
      query: r.value(1 << 20),
      cached: r.value(1 << 24),
    }));
    const cascade = r.below(4) === 0 ? 1 + r.value((1 << 24) - 1) : undefined;
    return {
      entries,
      self: r.below(entries.length),
      rows: r.value(1 << 20),
      logitsRows: r.value(4096),
      ...(moe
        ? {
          expertRows: Array.from(
            { length: layers },
            () => Array.from({ length: r.below(4) }, () => r.value(1 << 20)),
          ),
        }
        : {}),
      ...(cascade === undefined ? {} : { cascadePrefix: cascade }),
    };
  });
}

const BOUNDS: HistoryBounds = {
  schema: SERVING_HISTORY_SCHEMA,
  passes: MAX_HISTORY_PASSES,
  entries: MAX_HISTORY_ENTRIES,
  passEntries: 4096,
  moeLayers: 1024,
  experts: 4096,
};

/** The generic check's answer: the passes, or the refusal's message. */
function _generic(bytes: Uint8Array): HistoryPass[] | string {
  try {
    return parseServingHistoryGeneric(bytes);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return e.message;
  }
}

/** Both ways agree on these bytes: the fast reader accepts exactly what the generic check does. */
function _agree(bytes: Uint8Array, what: string): boolean {
  const fast = readCanonicalHistory(bytes, BOUNDS);
  const generic = _generic(bytes);
  if (typeof generic === "string") {
    assert.equal(
      fast,
      null,
      `${what}: the fast reader took what the generic check refuses (${generic})`,
    );
    return false;
  }
  assert.notEqual(fast, null, `${what}: the fast reader declined a valid history`);
  assert.deepEqual(fast, generic, what);
  return true;
}

const MUTANTS = [...'0123456789,[]{}" -.e:'].map((c) => c.charCodeAt(0));

function _mutate(bytes: Uint8Array, seed: number): Uint8Array {
  const r = _rng(seed);
  const at = r.below(bytes.length);
  const c = MUTANTS[r.below(MUTANTS.length)]!;
  switch (r.below(4)) {
    case 0: {
      const m = bytes.slice();
      m[at] = c;
      return m;
    }
    case 1:
      return new Uint8Array([...bytes.subarray(0, at), ...bytes.subarray(at + 1)]);
    case 2:
      return new Uint8Array([...bytes.subarray(0, at), c, ...bytes.subarray(at)]);
    default: {
      // A digit run lengthened by one: bounds, leading zeros.
      const m = new Uint8Array([
        ...bytes.subarray(0, at),
        0x30 + r.below(10),
        ...bytes.subarray(at),
      ]);
      return m;
    }
  }
}

Deno.test("readCanonicalHistory() reads every random valid history as the generic check does", () => {
  for (let seed = 1; seed <= 400; seed++) {
    const passes = _history(seed);
    const bytes = encodeServingHistory(passes);
    assert.ok(_agree(bytes, `seed ${seed}`), `seed ${seed}: a valid history refused`);
    assert.deepEqual(parseServingHistory(bytes), parseServingHistoryGeneric(bytes));
  }
});

Deno.test("readCanonicalHistory() declines every mutation the generic check refuses, and reads the rest alike", () => {
  let refused = 0;
  let kept = 0;
  for (let seed = 1; seed <= 150; seed++) {
    const bytes = encodeServingHistory(_history(seed));
    for (let m = 0; m < 40; m++) {
      const mutant = _mutate(bytes, seed * 1000 + m);
      if (_agree(mutant, `seed ${seed} mutation ${m}`)) kept++;
      else refused++;
    }
  }
  // Both outcomes occur (a digit changed within its range keeps a valid history).
  assert.ok(refused > 1000 && kept > 50, `refused ${refused}, kept ${kept}`);
});

Deno.test("readCanonicalHistory() declines values past their bounds, leading zeros, signs and reordered keys", () => {
  const one = (p: Record<string, unknown>) =>
    new TextEncoder().encode(
      JSON.stringify({ passes: [p], schema: SERVING_HISTORY_SCHEMA }),
    );
  const base = { entries: [[1, 0]], logitsRows: 1, rows: 1, self: 0 };
  assert.ok(_agree(one(base), "base"));
  const cases: [string, Uint8Array][] = [
    ["query past 2^20", one({ ...base, entries: [[(1 << 20) + 1, 0]] })],
    ["cached past 2^24", one({ ...base, entries: [[1, (1 << 24) + 1]] })],
    ["logitsRows past 4096", one({ ...base, logitsRows: 4097 })],
    ["rows past 2^20", one({ ...base, rows: (1 << 20) + 1 })],
    ["self past the entries", one({ ...base, self: 1 })],
    ["cascadePrefix 0", one({ cascadePrefix: 0, ...base })],
    ["no entries", one({ ...base, entries: [] })],
    ["a negative count", one({ ...base, entries: [[-1, 0]] })],
    ["a fraction", one({ ...base, entries: [[1.5, 0]] })],
    ["an unknown field", one({ ...base, zeta: 1 })],
    ["keys out of order", one({ rows: 1, entries: [[1, 0]], logitsRows: 1, self: 0 })],
    [
      "a leading zero",
      new TextEncoder().encode(
        new TextDecoder().decode(one(base)).replace('"rows":1', '"rows":01'),
      ),
    ],
    [
      "a space",
      new TextEncoder().encode(
        new TextDecoder().decode(one(base)).replace('"rows":1', '"rows": 1'),
      ),
    ],
    ["a newline at the end", new TextEncoder().encode(new TextDecoder().decode(one(base)) + "\n")],
    ["another schema", new TextEncoder().encode(JSON.stringify({ passes: [base], schema: "x" }))],
    [
      "a trailing comma",
      new TextEncoder().encode(new TextDecoder().decode(one(base)).replace("]]", "],]")),
    ],
  ];
  for (const [what, bytes] of cases) assert.equal(_agree(bytes, what), false, what);
  // Bounds of list lengths, with small bounds standing for the real ones.
  const three = encodeServingHistory([{
    entries: [{ query: 1, cached: 0 }, { query: 1, cached: 1 }],
    self: 0,
    rows: 2,
    logitsRows: 1,
    expertRows: [[1, 1, 0]],
  }, { entries: [{ query: 1, cached: 2 }], self: 0, rows: 1, logitsRows: 1, expertRows: [[]] }]);
  assert.notEqual(readCanonicalHistory(three, BOUNDS), null);
  for (
    const small of [
      { entries: 2 },
      { passEntries: 1 },
      { passes: 1 },
      { experts: 2 },
      { moeLayers: 0 },
    ]
  ) {
    assert.equal(readCanonicalHistory(three, { ...BOUNDS, ...small }), null, JSON.stringify(small));
  }
});
