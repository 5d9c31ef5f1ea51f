/**
 * A vLLM pass of more requests than the engine's scheduler runs at once (`max_num_seqs`: the
 * stack's pinned `--max-num-seqs`, else the device's default, 256 on an A100) describes a run
 * that cannot happen: the requests past the limit run in another pass, at another size, with
 * other bits. Such a record FAILs (it PASSed when its fingerprint was the verifier's own
 * recomputation); one that states settings beyond its stack's is NOT_VERIFIED; the prover tools
 * refuse it.
 */
import assert from "node:assert/strict";
import {
  type ClaimPredicate,
  encodeServingHistory,
  type HistoryPass,
  type ModelForwardWorkload,
  parseServingHistory,
  type SequenceWorkload,
} from "../../src/claims/mod.ts";
import { vllmMaxNumSeqs } from "../../src/kernels/mod.ts";
import { servingScenario } from "../verify/_serving_fixture.ts";
import { commit, forwardScenario, proverRun, verifyAlone } from "./_recompute_fixture.ts";

const forward = await proverRun(forwardScenario([], 1));
const serving = await proverRun(servingScenario([], 1));
const dense = forward.records[1]!.predicate;
const w = dense.workload as ModelForwardWorkload;

/** The dense record as one vLLM pass of `n` two-token sequences on `stack`. */
function pass(n: number, stack: string, components: Record<string, string> = {}): ClaimPredicate {
  const sequences = Array.from({ length: n }, (_, i) => [(7 * i + 3) % 500 + 1, 11]);
  return {
    ...dense,
    software: { stack, components: { vllm: "0.11.0", ...components } },
    batch: { size: n },
    workload: {
      kind: "model_forward",
      model: w.model,
      tokens: { sequences },
      kernel: w.kernel,
      attention: w.attention,
      positions: sequences.map((_, i) => [i, 1] as const),
    } as ModelForwardWorkload,
    fingerprint: {
      tensor: "model.norm.out",
      dtype: "bf16",
      shape: [n, 256],
      sha256: "0".repeat(64),
    },
  };
}

Deno.test("vllmMaxNumSeqs(): the stack's pinned --max-num-seqs (the last one), else the device's default bound", () => {
  const on = (flags: string, gpu = "h100-sxm") =>
    vllmMaxNumSeqs({ components: { vllm: "0.11.0", flags } }, gpu);
  assert.deepEqual(on("--max-num-seqs 8 --max_num_seqs=16"), {
    ok: true,
    requests: 16,
    rule: "--max-num-seqs 16 pinned by the stack",
  });
  const a100 = on("--enforce-eager", "a100");
  assert.ok(a100?.ok && a100.requests === 256, JSON.stringify(a100));
  const h100 = on("(defaults)");
  assert.ok(h100?.ok && h100.requests === 1024, JSON.stringify(h100));
  // Below 70 GiB vLLM's default is 256 (review h87: an L40S was held to 1024).
  for (const gpu of ["l40s", "l40", "a40", "a30", "l4", "a2", "v100", "rtx-1000-ada"]) {
    const b = on("(defaults)", gpu);
    assert.ok(
      b?.ok && b.requests === 256 && /below 70 GiB/.test(b.rule),
      `${gpu}: ${JSON.stringify(b)}`,
    );
  }
  for (const gpu of ["h100-pcie", "h100-nvl", "h200", "gh200", "b200", "rtx-pro-6000-blackwell"]) {
    const b = on("(defaults)", gpu);
    assert.ok(b?.ok && b.requests === 1024, `${gpu}: ${JSON.stringify(b)}`);
  }
  assert.ok(on("--max-num-seqs 0x10")?.ok === false);
  const json = vllmMaxNumSeqs(
    { components: { vllm: "0.11.0", flags: "--config c.yaml", note: "max_num_seqs: 9" } },
    "a100",
  );
  assert.ok(json?.ok === false && /not read here/.test(json.reason));
  assert.equal(vllmMaxNumSeqs({ components: { transformers: "4.57.1" } }, "a100"), null);
});

Deno.test("vllmMaxNumSeqs(): a pinned --max-num-seqs wins over every GPU's default, below it and above it", () => {
  // vLLM 0.11 `EngineArgs._set_default_args` (engine/arg_utils.py) sets the usage context's
  // default only `if self.max_num_seqs is None`: an engine argument the stack pins is kept.
  for (const gpu of ["a100", "l40s", "h100-sxm"]) {
    for (const n of [8, 512, 2048]) {
      const b = vllmMaxNumSeqs(
        { components: { vllm: "0.11.0", flags: `--max-num-seqs ${n}` } },
        gpu,
      );
      assert.deepEqual(b, {
        ok: true,
        requests: n,
        rule: `--max-num-seqs ${n} pinned by the stack`,
      });
    }
  }
});

Deno.test("a vLLM forward pass of 257 requests FAILs on a stack pinning --max-num-seqs 256 and on an A100's default; 256 are not refused for it", async () => {
  for (const stack of ["vllm-0.11-custom-ops-piecewise-fa2", "vllm-0.11-eager-fa2"]) {
    const r = await verifyAlone(pass(257, stack), forward.blobs);
    assert.equal(r.status, "FAIL", `${stack}: ${r.reason}`);
    assert.match(
      r.reason,
      /^record contradicts its stack: its pass holds 257 requests, more than vLLM's scheduler runs at once \(max_num_seqs 256: /,
    );
    // 256 requests: compared bit for bit (the zero fingerprint FAILs as a mismatch, not a limit).
    const fits = await verifyAlone(pass(256, stack), forward.blobs);
    assert.doesNotMatch(fits.reason, /max_num_seqs/, `${stack}: ${fits.reason}`);
  }
});

Deno.test("a record stating settings beyond its stack's (which may raise max_num_seqs) is NOT_VERIFIED past the limit", async () => {
  const r = await verifyAlone(
    pass(257, "vllm-0.11-eager-fa2", { flags: "--enforce-eager --max-num-seqs 512" }),
    forward.blobs,
  );
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(r.reason, /more than vLLM's scheduler runs at once .* which may raise the limit/);
});

Deno.test("a served sequence whose history holds a pass of 257 requests FAILs, naming the pass, wherever it comes; stating settings that may raise the limit hides no contradiction of its history", async () => {
  const base = serving.records[1]!.predicate;
  const sw = base.workload as SequenceWorkload;
  const blobs = new Map(serving.blobs);
  const honest = parseServingHistory(blobs.get(sw.history.sha256)!);
  const own = honest[0]!.entries[honest[0]!.self]!;
  const entries = [own, ...Array.from({ length: 256 }, () => ({ query: 1, cached: 8 }))];
  const wide: HistoryPass = {
    entries,
    self: 0,
    rows: entries.reduce((s, e) => s + e.query, 0),
    logitsRows: entries.length,
  };
  // The widest pass alone, and the widest pass first (the whole prompt, beside 256 decoding
  // requests) with the sequence's decode steps after it, one entry each: the limit holds the
  // widest pass, not the last.
  const prompt = sw.tokens.prompt.length;
  const first: HistoryPass = {
    entries: [{ query: prompt, cached: 0 }, ...entries.slice(1)],
    self: 0,
    rows: prompt + 256,
    logitsRows: 257,
  };
  const decode = sw.tokens.generated.slice(1).map((_, i): HistoryPass => ({
    entries: [{ query: 1, cached: prompt + i }],
    self: 0,
    rows: 1,
    logitsRows: 1,
  }));
  assert.ok(decode.length > 0);
  for (const history of [[wide], [first, ...decode]]) {
    const sha256 = commit(blobs, encodeServingHistory(history));
    const r = await verifyAlone({
      ...base,
      software: { stack: "vllm-0.11-custom-ops-piecewise-fa2", components: { vllm: "0.11.0" } },
      batch: { size: 257 },
      workload: { ...sw, history: { sha256, passes: history.length } },
    }, blobs);
    assert.equal(r.status, "FAIL", `${history.length} passes: ${r.reason}`);
    assert.match(r.reason, /^record contradicts its stack: pass 0 holds 257 requests/);
  }
  // Stating settings beyond the stack's makes the 257 requests NOT_VERIFIED, said only once the
  // history is held to the record: passes one decode step short of its tokens still FAIL.
  const short = [first, ...decode.slice(0, -1)];
  const sha256 = commit(blobs, encodeServingHistory(short));
  const r = await verifyAlone({
    ...base,
    software: {
      stack: "vllm-0.11-eager-fa2",
      components: { vllm: "0.11.0", flags: "--enforce-eager --max-num-seqs 512" },
    },
    batch: { size: 257 },
    workload: { ...sw, history: { sha256, passes: short.length } },
  }, blobs);
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(r.reason, /^record contradicts its history: the passes compute \d+ positions/);
});
