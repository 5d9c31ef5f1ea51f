/**
 * The simulated prover's sequence records: for each of the scenario's serving checkpoints, a
 * continuous-batching engine (`serving_scheduler.ts`) runs seeded requests pass by pass on the
 * emulator, each pass on every entry it holds (all sequences' rows, the KV caches carried from
 * pass to pass), choosing tokens greedily from the logits; each finished request becomes one
 * `sequence` record with its serving history. The serving falsifications are injected as the
 * GPU would have run them. A vLLM engine run keeps vLLM's limits (`vllm_serving_limits.ts`):
 * `max_num_seqs` requests a pass, and `max_model_len`, at which a request stops generating.
 *
 * @module
 */
import { claimEnvelope, sectionRuntime } from "./claims_context.ts";
import { claimedParallelism, runParallel, topologyComponents } from "./scenario_parallel.ts";
import { sha256Hex } from "../assets/mod.ts";
import {
  type ClaimRecord,
  encodeServingHistory,
  type HistoryPass,
  recordDigest,
} from "../claims/mod.ts";
import { InputError } from "../errors.ts";
import { isVllmStack, type StackProfile, vllmTokenBudget } from "../kernels/mod.ts";
import {
  type BlockRuntime,
  type PassShape,
  runServingForward,
  type SequenceKv,
  type ServedSequence,
  type TensorParallel,
} from "../model/mod.ts";
import type { ModelClaimsContext } from "./make_model_claims.ts";
import type { Scenario } from "./scenario.ts";
import {
  loadScenarioCheckpoint,
  modelRefOf,
  type ScenarioCheckpoint,
  sectionStack,
} from "./scenario_checkpoint.ts";
import type { ServingFalsification, ServingScenario } from "./serving_scenario.ts";
import { sequenceRecord } from "./sequence_record.ts";
import { checkHonestRecord } from "./honest_record.ts";
import { scheduleStep, type ServingRequest } from "./serving_scheduler.ts";
import {
  checkPromptRoom,
  servedRequests,
  type ServingLimits,
  servingLimits,
} from "./vllm_serving_limits.ts";

/**
 * Where the sequence records go in the log and how blobs are stored: the model-forward records'
 * context (the progress callback is not called).
 */
export type SequenceClaimsContext = ModelClaimsContext;

/** What one request of an engine run produced. */
interface _Served {
  readonly prompt: number[];
  readonly generated: number[];
  readonly history: HistoryPass[];
  last: { rows: Uint16Array; chain: { attention: string; mlp: string }[] } | null;
}

/**
 * Appends the scenario's sequence records.
 *
 * @param scenario a scenario with a `serving` section
 * @param ctx assets, walker, hardware, log position, blob store
 * @returns the records and the falsified sequence numbers
 * @throws {InputError} `SCENARIO_UNSUPPORTED` when a pass cannot be emulated as configured,
 *   `SCENARIO_INVALID` for a falsification that does not fit its record's history, a request
 *   or setting a vLLM engine would not serve (`vllm_serving_limits.ts`), or an engine run whose
 *   records, one of them named by no falsification, the audit would FAIL for what they state of
 *   their world, SM count or kernel, or that name a catalog of another GPU (`checkHonestRecord`)
 * @example
 * ```ts ignore
 * const { records } = await makeSequenceClaims(scenario, ctx);
 * ```
 */
export async function makeSequenceClaims(
  scenario: Scenario,
  ctx: SequenceClaimsContext,
): Promise<{ records: ClaimRecord[]; falsified: { seq: number; kind: string }[] }> {
  const s = scenario.serving;
  if (s === undefined) return { records: [], falsified: [] };
  const records: ClaimRecord[] = [];
  const falsified = new Map<number, string>();
  let prev = ctx.prev;
  for (const [ci, path] of s.checkpoints.entries()) {
    const model = await loadScenarioCheckpoint(ctx, path);
    const claimedStack = sectionStack(s, ci);
    const { stack, catalog, runtime } = await sectionRuntime(ctx, {
      ...s,
      stack: claimedStack.stack,
    });
    const kernel = { catalog: catalog.value.id, catalogSha256: catalog.sha256 };
    const first = ctx.firstSeq + ci * s.requests;
    const topology = s.parallel?.[ci % s.parallel.length];
    const components = topologyComponents(claimedStack.components, topology);
    const parallelism = claimedParallelism(topology);
    // The run's records share their world: checked before the run, at its first record that no
    // falsification names.
    const honest = Array.from({ length: s.requests }, (_, r) => first + r)
      .find((seq) => !scenario.falsify.some((x) => x.seq === seq));
    if (honest !== undefined) {
      checkHonestRecord(
        claimEnvelope(scenario, {
          hardware: ctx.hardware,
          seq: honest,
          prev,
          stack: stack.id,
          components,
          parallelism,
        }),
        {
          seq: honest,
          section: "scenario.serving",
          stack,
          gpu: ctx.hardware.profile,
          kernel,
          catalog: catalog.value,
          multiProcessorCount: s.multiProcessorCount,
        },
      );
    }
    const gpu = ctx.hardware.profile.id;
    const limits = servingLimits(stack, { config: model.ckpt.config, gpu, maxSeqs: s.maxSeqs });
    const served = await _engineRun(model, {
      s: { ...s, ..._vllmBudget(stack, { maxModelLen: limits.maxModelLen, gpu, s }) },
      stack,
      limits,
      runtime,
      parallel: runParallel(topology, stack, runtime.profile),
      scenario,
      first,
      falsified,
    });
    for (const [r, q] of served.entries()) {
      const seq = first + r;
      const fake = _fake(scenario, seq);
      const history = fake?.kind === "pass_shape" ? _misreport(q.history, fake) : q.history;
      if (fake !== undefined) falsified.set(seq, fake.kind);
      const last = q.last!;
      let fingerprint = ctx.put(last.rows);
      const flip = scenario.falsify.find((x) => x.seq === seq && x.kind === "fingerprint");
      if (flip?.kind === "fingerprint") {
        fingerprint = ctx.flip(fingerprint, flip.bit);
        falsified.set(seq, "fingerprint");
      }
      const computed = q.prompt.length + q.generated.length - 1;
      const record = sequenceRecord(
        claimEnvelope(scenario, {
          hardware: ctx.hardware,
          seq,
          prev,
          stack: stack.id,
          components,
          parallelism,
        }),
        {
          model: modelRefOf(model),
          kernel,
          multiProcessorCount: s.multiProcessorCount,
          history: { sha256: ctx.put(encodeServingHistory(history)), passes: history },
          tokens: { prompt: q.prompt, generated: q.generated },
          positions: [computed - 1],
          layerChain: s.layerChain ? last.chain : undefined,
          hidden: model.ckpt.config.hidden,
          fingerprint,
        },
      );
      records.push(record);
      prev = recordDigest(record);
    }
  }
  return {
    records,
    falsified: [...falsified].sort((a, b) => a[0] - b[0]).map(([seq, kind]) => ({ seq, kind })),
  };
}

function _fake(scenario: Scenario, seq: number): ServingFalsification | undefined {
  const f = scenario.falsify.find((x) => x.seq === seq && x.kind !== "fingerprint");
  return f as ServingFalsification | undefined;
}

/**
 * The scheduler settings of a vLLM engine run: vLLM's V1 scheduler cuts a prompt's chunk only
 * where a pass has used its whole `max_num_batched_tokens` (`vllmTokenBudget`), so the scenario's
 * budget and chunk cap (HF's continuous batching) give way to its `vllmTokenBudget`, else to the
 * smallest default budget vLLM may have run with (given the run's `max_model_len`, from its
 * `servingLimits`); none for another stack.
 */
function _vllmBudget(
  stack: StackProfile,
  o: {
    readonly maxModelLen: number | undefined;
    readonly gpu: string;
    readonly s: ServingScenario;
  },
): { tokenBudget: number; maxChunk: number } | Record<never, never> {
  if (!isVllmStack(stack)) return {};
  const own = o.s.vllmTokenBudget;
  if (own !== undefined) return { tokenBudget: own, maxChunk: own };
  const b = vllmTokenBudget(stack, { gpu: o.gpu, maxModelLen: o.maxModelLen ?? null });
  if (b === null) return {};
  if (!b.ok) {
    throw new InputError("SCENARIO_UNSUPPORTED", `Cannot schedule on '${stack.id}': ${b.reason}`);
  }
  return { tokenBudget: b.tokens[0]!, maxChunk: b.tokens[0]! };
}

function _draw(seed: string, label: string, n: number): number {
  const h = sha256Hex(new TextEncoder().encode(`${seed}\u0000serving\u0000${label}`));
  return parseInt(h.slice(0, 8), 16) % n;
}

/** Runs one engine over the scenario's requests, pass by pass. */
async function _engineRun(
  model: ScenarioCheckpoint,
  o: {
    readonly s: ServingScenario;
    readonly stack: StackProfile;
    readonly limits: ServingLimits;
    readonly runtime: BlockRuntime;
    readonly parallel: TensorParallel | undefined;
    readonly scenario: Scenario;
    readonly first: number;
    readonly falsified: Map<number, string>;
  },
): Promise<_Served[]> {
  const { s, scenario, first } = o;
  const c = model.ckpt.config;
  const label = (r: number, what: string) => `${first + r}\u0000${what}`;
  const drawn: ServingRequest[] = Array.from({ length: s.requests }, (_, r) => ({
    arrival: _draw(scenario.seed, label(r, "arrival"), s.arrivalSteps),
    prompt: s.promptLengths[_draw(scenario.seed, label(r, "prompt"), s.promptLengths.length)]!,
    generate: s.generate[_draw(scenario.seed, label(r, "generate"), s.generate.length)]!,
  }));
  const { limits, stack } = o;
  const requests = servedRequests(drawn, { stack, config: c, limits, first });
  const served: _Served[] = requests.map((q, r) => ({
    prompt: Array.from(
      { length: q.prompt },
      (_, t) => _draw(scenario.seed, label(r, `tok.${t}`), c.vocab),
    ),
    generated: [],
    history: [],
    last: null,
  }));
  const progress = requests.map(() => ({ computed: 0, generated: 0 }));
  const kv: (SequenceKv | undefined)[] = requests.map(() => undefined);
  const total = requests.reduce((a, q) => a + q.prompt + q.generate, 0);
  for (let step = 0; progress.some((p, r) => p.generated < requests[r]!.generate); step++) {
    if (step > s.arrivalSteps + total) throw new Error("scheduler made no progress");
    const entries = scheduleStep(requests, progress, {
      step,
      tokenBudget: s.tokenBudget,
      maxChunk: s.maxChunk,
      ...limits,
    });
    if (entries.length === 0) continue;
    // Falsifications that change how this pass really ran (all its records become false).
    let phantom = 0;
    let forced: number | undefined;
    for (const e of entries) {
      const f = _fake(scenario, first + e.request);
      if (f === undefined || !("pass" in f) || f.pass !== served[e.request]!.history.length) {
        continue;
      }
      if (f.kind === "extra_sequence") phantom = f.extraLength;
      if (f.kind === "split_count") forced = f.splits;
    }
    if (phantom > 0 || forced !== undefined) {
      for (const e of entries) {
        o.falsified.set(first + e.request, phantom > 0 ? "extra_sequence" : "split_count");
      }
    }
    const real = entries.map((e) => ({ query: e.query, cached: e.cached }));
    const ran: PassShape = {
      entries: phantom > 0 ? [...real, { query: phantom, cached: 0 }] : real,
      rows: real.reduce((a, e) => a + e.query, 0) + phantom,
      logitsRows: entries.filter((e) => e.emits).length,
    };
    const sequences: ServedSequence[] = entries.map((e, i) => {
      const q = served[e.request]!;
      return {
        tokens: [...q.prompt, ...q.generated],
        prompt: q.prompt.length,
        steps: [{ pass: 0, entry: i }],
        start: e.cached,
      };
    });
    if (phantom > 0) {
      const tokens = Array.from({ length: phantom }, (_, t) => (t * 7 + step) % c.vocab);
      // A prefill chunk of a longer prompt: it emits no token.
      sequences.push({ tokens, prompt: phantom + 1, steps: [{ pass: 0, entry: real.length }] });
    }
    const r = await runServingForward(model.ckpt, { passes: [ran], sequences }, {
      runtime: o.runtime,
      multiProcessorCount: s.multiProcessorCount,
      kv: [...entries.map((e) => kv[e.request]), undefined],
      keepKv: true,
      parallel: o.parallel,
      positions: sequences.map((q, i) => [(q.start ?? 0) + ran.entries[i]!.query - 1]),
      ...(forced === undefined ? {} : { forcedSplits: new Map([[0, forced]]) }),
    });
    if (!r.supported) {
      throw new InputError("SCENARIO_UNSUPPORTED", `Cannot run serving pass ${step}: ${r.reason}`);
    }
    entries.forEach((e, i) => {
      const q = served[e.request]!;
      const res = r.result.sequences[i]!;
      kv[e.request] = r.result.kv![i]!;
      q.history.push({
        entries: real,
        self: i,
        rows: real.reduce((a, x) => a + x.query, 0),
        logitsRows: ran.logitsRows,
        ...(c.moe === undefined ? {} : { expertRows: r.result.expertRows[0]! }),
      });
      const p = progress[e.request]!;
      progress[e.request] = { computed: p.computed + e.query, generated: p.generated };
      checkPromptRoom(requests[e.request]!, {
        progress: progress[e.request]!,
        limits,
        seq: first + e.request,
        stack: stack.id,
      });
      if (!e.emits) return;
      const f = _fake(scenario, first + e.request);
      const greedy = res.greedy.get(0)!;
      const token = f?.kind === "token_replaced" && f.step === q.generated.length
        ? (f.token === greedy ? (greedy + 1) % c.vocab : f.token % c.vocab)
        : greedy;
      q.generated.push(token);
      progress[e.request] = { computed: p.computed + e.query, generated: p.generated + 1 };
      if (q.generated.length === requests[e.request]!.generate) {
        q.last = {
          rows: res.hidden.slice((e.query - 1) * c.hidden, e.query * c.hidden),
          chain: res.layerChain.map((l) => ({ ...l })),
        };
      }
    });
  }
  return served;
}

/** The history as a pass_shape falsification reports it. */
function _misreport(
  history: readonly HistoryPass[],
  f: Extract<ServingFalsification, { kind: "pass_shape" }>,
): HistoryPass[] {
  const p = history[f.pass];
  const bad = (why: string): never => {
    throw new InputError("SCENARIO_INVALID", `Cannot falsify record ${f.seq}: ${why}`);
  };
  if (p === undefined) return bad(`its sequence has no pass ${f.pass}`);
  const delta = f.claimedRows - p.rows;
  const others = p.entries.map((e, i) => ({ e, i })).filter(({ i }) => i !== p.self);
  if (others.length === 0) return bad(`pass ${f.pass} has no other entry to misreport`);
  const target = others.reduce((a, b) => (b.e.query > a.e.query ? b : a));
  if (target.e.query + delta < 1 || delta === 0) {
    return bad(`pass ${f.pass} cannot be reported with ${f.claimedRows} rows`);
  }
  const entries = p.entries.map((e, i) =>
    i === target.i ? { query: e.query + delta, cached: e.cached } : e
  );
  return history.map((q, i) => (i === f.pass ? { ...q, entries, rows: f.claimedRows } : q));
}
