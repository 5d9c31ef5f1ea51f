/**
 * Hostile sequence records: the serving-history blob is parsed strictly (canonical bytes only,
 * bounded, every field checked) and a record whose history contradicts it, its tokens or itself
 * FAILs with the reason; a history the prover does not produce is a breached obligation.
 */
import assert from "node:assert/strict";
import { type BlobStore, openAssetStore } from "../../src/assets/mod.ts";
import {
  encodeServingHistory,
  formatClaimLog,
  GENESIS_PREV,
  type HistoryPass,
  makeClaimRecord,
  MAX_HISTORY_BYTES,
  MAX_HISTORY_PASSES,
  parseClaimLog,
  parseServingHistory,
  type SequenceWorkload,
  sha256Hex,
} from "../../src/claims/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import { verifyRecord } from "../../src/verify/mod.ts";
import { assertCode } from "../_assert_code.ts";
import { InputError } from "../../src/errors.ts";
import { engineWalker } from "../model/forward/_forward_fixture.ts";
import { servingScenario } from "../verify/_serving_fixture.ts";
import { flashAttentionForward } from "../../src/kernels/mod.ts";
import { ENGINE } from "../model/forward/_forward_fixture.ts";

const attention: typeof flashAttentionForward = (i, o) =>
  flashAttentionForward(i, { ...o, kWalk: ENGINE.kWalkAuto });

const enc = (s: string) => new TextEncoder().encode(s);
const PASS: HistoryPass = { entries: [{ query: 3, cached: 0 }], self: 0, rows: 3, logitsRows: 1 };

Deno.test("parseServingHistory(): refuses what is not exactly a canonical, bounded history", () => {
  const good = new TextDecoder().decode(encodeServingHistory([PASS]));
  assert.equal(parseServingHistory(enc(good)).length, 1);
  const bad = [
    good.replace(":", ": "), // not canonical
    good + "\n",
    good.replace('"rows":3', '"rows":3,"rows":3'), // duplicate key
    good.replace('"rows":3', '"rows":3.0'),
    good.replace('"rows":3', '"rows":-1'),
    good.replace('"self":0', '"self":1'), // no such entry
    good.replace("[[3,0]]", "[[3,0,1]]"),
    good.replace("[[3,0]]", '[["3",0]]'),
    good.replace('"schema":"bitaudit.serving-history/v1"', '"schema":"x"'),
    good.replace('"logitsRows":1', '"logitsRows":1,"note":"x"'), // unknown field (canonical order kept)
    "\ufeff" + good,
    "{}",
    "[]",
    "",
  ];
  for (const text of bad) {
    assertCode(() => parseServingHistory(enc(text)), InputError, "HISTORY_INVALID");
  }
  assertCode(
    () => parseServingHistory(new Uint8Array([0xff, 0xfe])),
    InputError,
    "HISTORY_INVALID",
  );
  assert.throws(() => parseServingHistory(new Uint8Array(MAX_HISTORY_BYTES + 1)), /exceed/);
  // A cascade prefix is optional, at least 1, and an integer.
  const cascade = new TextDecoder().decode(encodeServingHistory([{ ...PASS, cascadePrefix: 256 }]));
  assert.equal(parseServingHistory(enc(cascade))[0]!.cascadePrefix, 256);
  for (const v of ["0", "-1", "256.5", '"256"', "16777217", "null"]) {
    assertCode(
      () =>
        parseServingHistory(enc(cascade.replace('"cascadePrefix":256', `"cascadePrefix":${v}`))),
      InputError,
      "HISTORY_INVALID",
    );
  }
});

// One honest dense sequence record to bend.
const store = await openAssetStore();
const out = await makeClaims(parseScenario(servingScenario([], 3)), {
  store,
  walker: engineWalker,
});
const honest = out.records[1]!;
const w0 = honest.predicate.workload as SequenceWorkload;
const passes0 = parseServingHistory(out.blobs.get(w0.history.sha256)!);

async function verifyVariant(
  o: {
    workload?: Partial<SequenceWorkload>;
    passes?: HistoryPass[];
    batch?: number;
    drop?: boolean;
  },
) {
  const blobs = new Map(out.blobs);
  let history = w0.history;
  if (o.passes !== undefined) {
    const bytes = encodeServingHistory(o.passes);
    const digest = sha256Hex(bytes);
    blobs.set(digest, bytes);
    history = { sha256: digest, passes: o.passes.length };
  }
  if (o.drop === true) blobs.delete(history.sha256);
  const record = makeClaimRecord({
    ...honest.predicate,
    log: { logId: "hostile", seq: 0, prev: GENESIS_PREV },
    batch: { size: o.batch ?? honest.predicate.batch.size },
    workload: { ...w0, history, ...o.workload } as SequenceWorkload,
  });
  const store2: BlobStore = { dir: "memory", get: (d) => Promise.resolve(blobs.get(d) ?? null) };
  const log = parseClaimLog(formatClaimLog([record]));
  return await verifyRecord({ store, blobs: store2, walker: engineWalker, attention }, {
    log,
    index: 0,
  });
}

/** The honest history with its sequence's last two decode steps computed by one pass. */
function _mergedDecode(): HistoryPass[] {
  const n = passes0.length;
  const [a, b] = [passes0[n - 2]!, passes0[n - 1]!];
  assert.ok(w0.tokens.generated.length >= 3, "the last two passes compute generated positions");
  assert.equal(a.entries[a.self]!.query, 1);
  assert.equal(b.entries[b.self]!.query, 1);
  const entries = a.entries.map((e, j) => (j === a.self ? { ...e, query: 2 } : e));
  return [...passes0.slice(0, n - 2), { ...a, entries, rows: a.rows + 1 }];
}

Deno.test("parseServingHistory(): refuses a blob at its first value out of place, never reading the rest", () => {
  // Each blob ends in text that is not JSON: a parse that read past the misplaced value would
  // refuse it as such instead.
  const tail = ",this is not JSON";
  const cases: [string, RegExp][] = [
    [
      `{"passes":[${"{},".repeat(MAX_HISTORY_PASSES)}{}${tail}`,
      /\$\.passes must be an array of at most 65536$/,
    ],
    [`{"passes":[{"bogus":[]}${tail}`, /\$\.passes\[0\]\.bogus is an unknown field$/],
    [
      `{"passes":[{"entries":[[1,0,{}]${tail}`,
      /\$\.passes\[0\]\.entries\[0\] must be \[query, cached\]$/,
    ],
    [
      `{"passes":[{"entries":[[{}]${tail}`,
      /\$\.passes\[0\]\.entries\[0\]\[0\] must be an integer$/,
    ],
    [`{"passes":[{"expertRows":[[0,{}]${tail}`, /expertRows\[0\]\[1\] must be an integer$/],
    [`{"passes":[{"self":[]${tail}`, /\$\.passes\[0\]\.self must be an integer$/],
    [`{"passes":[[]${tail}`, /\$\.passes\[0\] must be an object$/],
    [`{"passes":{"a":1}${tail}`, /\$\.passes must be an array of at most 65536$/],
    [`{"schema":{}${tail}`, /\$\.schema must be 'bitaudit\.serving-history\/v1'$/],
    [`{"x":{}${tail}`, /\$\.x is an unknown field$/],
    [`[{}${tail}`, /\$ must be an object$/],
  ];
  for (const [text, why] of cases) {
    assert.throws(() => parseServingHistory(enc(text)), (e) => {
      assert.ok(e instanceof InputError && e.code === "HISTORY_INVALID", String(e));
      assert.match(e.message, why);
      return true;
    });
  }
  // The bounds themselves hold: 65,536 passes are read, the 65,537th is refused where it begins.
  const one = new TextDecoder().decode(encodeServingHistory([PASS]));
  const pass = one.slice('{"passes":['.length, one.lastIndexOf("]"));
  const history = (n: number) =>
    enc(`{"passes":[${Array(n).fill(pass).join(",")}],"schema":"bitaudit.serving-history/v1"}`);
  assert.equal(parseServingHistory(history(MAX_HISTORY_PASSES)).length, MAX_HISTORY_PASSES);
  assert.throws(() => parseServingHistory(history(MAX_HISTORY_PASSES + 1)), /at most 65536$/);
});

Deno.test("sequence records contradicting their history or tokens FAIL with the reason", async () => {
  assert.equal((await verifyVariant({})).status, "PASS");
  const cases: [Parameters<typeof verifyVariant>[0], RegExp][] = [
    [{ drop: true }, /serving history .* was not produced/],
    [
      { workload: { history: { ...w0.history, passes: w0.history.passes + 1 } } },
      /passes, its history holds/,
    ],
    [{ batch: 99 }, /batch size 99, its widest pass/],
    [
      { workload: { tokens: { ...w0.tokens, generated: [...w0.tokens.generated, 1] } } },
      /the passes compute \d+ positions/,
    ],
    // One generated token fewer than the passes compute: the last pass computes a position the
    // tokens do not reach (its fingerprinted positions moved one back, within them).
    [
      {
        workload: {
          tokens: { ...w0.tokens, generated: w0.tokens.generated.slice(0, -1) },
          positions: w0.positions.map((p) => p - 1),
        },
      },
      new RegExp(
        `the passes compute ${w0.tokens.prompt.length + w0.tokens.generated.length - 1} ` +
          `positions, the prompt and generated tokens need ` +
          `${w0.tokens.prompt.length + w0.tokens.generated.length - 2}$`,
      ),
    ],
    [
      { passes: passes0.map((p, i) => (i === 0 ? { ...p, logitsRows: p.entries.length + 1 } : p)) },
      /logits rows/,
    ],
    [
      {
        passes: passes0.map((p, i) =>
          i === passes0.length - 1
            ? {
              ...p,
              entries: p.entries.map((e, j) => (j === p.self ? { ...e, cached: e.cached + 1 } : e)),
            }
            : p
        ),
      },
      /cached tokens/,
    ],
    // A pass that computes nothing of this sequence, after the prompt: a contradiction, not
    // speculative decoding (NOT_VERIFIED would turn a falsified record's FAIL into INCONCLUSIVE).
    [
      {
        passes: [...passes0, {
          entries: [{ query: 0, cached: w0.tokens.prompt.length + w0.tokens.generated.length - 1 }],
          self: 0,
          rows: 1,
          logitsRows: 0,
        }],
      },
      /pass \d+ computes no position of this sequence/,
    ],
    // Two decode steps in one pass is speculative decoding, which no stack runs: the claim
    // contradicts the stack, whatever else is wrong (here a token that is not the argmax).
    [{ passes: _mergedDecode() }, /pass \d+ computes 2 generated positions at once/],
    [
      {
        passes: _mergedDecode(),
        workload: {
          tokens: {
            ...w0.tokens,
            generated: w0.tokens.generated.map((t, i) => i === 0 ? t + 1 : t),
          },
        },
      },
      /pass \d+ computes 2 generated positions at once/,
    ],
    // Cascade attention is vLLM's: on an HF continuous-batching stack the claim contradicts it,
    // whatever its prefix (256 is one vLLM 0.11 could take), for that stack.
    ...[1, 256].map((prefix): [Parameters<typeof verifyVariant>[0], RegExp] => [
      { passes: passes0.map((p, i) => (i === 0 ? { ...p, cascadePrefix: prefix } : p)) },
      /^record contradicts its stack: pass 0 claims vLLM's cascade attention, which stack '[^']+' never runs$/,
    ]),
  ];
  for (const [variant, reason] of cases) {
    const r = await verifyVariant(variant);
    assert.equal(r.status, "FAIL", `${reason}: ${r.reason}`);
    assert.match(r.reason, reason);
  }
  const dropped = await verifyVariant({ drop: true });
  assert.equal(dropped.obligation, "committed-input");
});

Deno.test("a sampled-decoding sequence record is NOT_VERIFIED for its token choice, with its hidden states verified", async () => {
  const r = await verifyVariant({
    workload: { decoding: "sampled", sampler: "top-p 0.9, seed 7" },
  });
  assert.equal(r.status, "NOT_VERIFIED");
  assert.match(
    r.reason,
    /^hidden states match the fingerprint bit for bit; .* sampler 'top-p 0\.9, seed 7'/,
  );
});

Deno.test("a history claiming a pass of 2^20 rows is judged from its shape, never allocated", async () => {
  const last = passes0.length - 1;
  const huge = passes0.map((p, i) => {
    if (i !== last) return p;
    const others = p.entries.length - 1;
    const extra = (1 << 20) - p.rows;
    const entries = p.entries.map((e, j) =>
      j === p.self || others === 0
        ? e
        : j === (p.self === 0 ? 1 : 0)
        ? { ...e, query: e.query + extra }
        : e
    );
    return others === 0
      ? { ...p, entries: [...entries, { query: extra, cached: 0 }], rows: 1 << 20 }
      : { ...p, entries, rows: 1 << 20 };
  });
  const t0 = performance.now();
  const r = await verifyVariant({
    passes: huge,
    batch: Math.max(...huge.map((p) => p.entries.length)),
  });
  // The replay computes the sequence's own rows only, so the neighbours' 2^20 rows cost nothing
  // to bound; they shape the launch, which the demo catalog (M up to 4,096) does not cover.
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(r.reason, /catalog 'demo-qwen3-tiny-a100' does not cover M=1048576/);
  assert.ok(performance.now() - t0 < 20_000);
});

Deno.test("a sequence record with no generated token is held to its prompt's positions, each computed once: its history is replayed, not refused", async () => {
  // Every token but the last generated one is an input of some pass: with none generated, every
  // prompt token is, so the passes through the prompt's end compute prompt.length positions.
  const n = w0.tokens.prompt.length;
  const through = passes0.findIndex((p) => {
    const e = p.entries[p.self]!;
    return e.cached + e.query === n;
  });
  assert.ok(through >= 0 && through < passes0.length - 1, "a pass ends the prompt");
  const r = await verifyVariant({
    passes: passes0.slice(0, through + 1),
    workload: { tokens: { ...w0.tokens, generated: [] }, positions: [n - 1] },
  });
  // The claimed fingerprint is the honest record's (another position): only the replay differs.
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(r.reason, /^recomputed fingerprint [0-9a-f]{64} differs from the claimed/);
});
