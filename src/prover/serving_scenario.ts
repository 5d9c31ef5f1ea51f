/**
 * The serving section of a prover scenario and its falsifications:
 * ```
 * "serving": { "stack", "components",   (or "stacks", below; not both)
 *              "catalog", "multiProcessorCount",
 *              "checkpoints": ["tables/models/<dir>", ...],  (one engine run per checkpoint)
 *              "requests": n,              (per engine run; one `sequence` record each)
 *              "arrivalSteps": n,          (arrival step of each request drawn in 0..n-1)
 *              "promptLengths": [..], "generate": [..],   (drawn per request from the seed)
 *              "tokenBudget": n, "maxChunk": n,           (scheduler: tokens per pass, chunk cap)
 *              "vllmTokenBudget"?: n,      (a vLLM engine's tokens per pass, uncapped chunks;
 *                                           default the smallest budget vLLM may run with)
 *              "maxSeqs"?: n,              (scheduler: entries per pass, vLLM's max_num_seqs;
 *                                           default the vLLM stack's, else no limit)
 *              "stacks"?: [{"stack", "components"}, ...],  (cycled over the checkpoints)
 *              "layerChain": bool }
 * ```
 * Falsifications of sequence records (the record's `seq`; `pass` counts the passes that touched
 * the sequence, from 0): `pass_shape` (the history reports pass `pass` with `claimedRows` GEMM
 * rows, moving the difference onto its largest neighbour entry), `extra_sequence` (pass `pass`
 * ran with one more prefill entry of `extraLength` tokens that no record reports: every record
 * of that pass is false), `split_count` (pass `pass` ran FA2 with `splits` KV splits instead of
 * the heuristic's: every record of that pass is false), `token_replaced` (generated token `step`
 * was `token`, not the argmax, and fed back: the hidden states are honest, greedy is not).
 *
 * @module
 */
import { type Fields, fieldsOf, int, ints, onlyKnown } from "../json_fields.ts";
import { type ModelSection, modelSection } from "./scenario_checkpoint.ts";
import { type ScenarioParallel, scenarioParallelList } from "./scenario_parallel.ts";

/** The serving section. */
export interface ServingScenario extends ModelSection {
  /** Requests per engine run. */
  readonly requests: number;
  /** Arrival steps are drawn in 0..arrivalSteps-1. */
  readonly arrivalSteps: number;
  /** Prompt lengths a request draws from. */
  readonly promptLengths: readonly number[];
  /** Generated-token counts a request draws from. */
  readonly generate: readonly number[];
  /** Tokens per pass (decode steps first, then prefill chunks). */
  readonly tokenBudget: number;
  /** Largest prefill chunk of one entry. */
  readonly maxChunk: number;
  /**
   * Tokens per pass of a vLLM engine run, whose chunks are cut only by the budget; absent: the
   * smallest default budget vLLM may have run with (`vllmTokenBudget`). Another budget than the
   * stack's is a run vLLM never makes: its records FAIL.
   */
  readonly vllmTokenBudget?: number;
  /**
   * Most entries per pass (vLLM's `max_num_seqs`); absent: no limit, on a vLLM stack its
   * `max_num_seqs` (`vllmMaxNumSeqs`), which a larger value is refused for exceeding.
   */
  readonly maxSeqs?: number;
  /** Topologies cycled over the checkpoints' engine runs (absent: one GPU each). */
  readonly parallel?: readonly ScenarioParallel[];
}

/** A falsification of a sequence record. */
export type ServingFalsification =
  | {
    readonly seq: number;
    readonly kind: "pass_shape";
    readonly pass: number;
    readonly claimedRows: number;
  }
  | {
    readonly seq: number;
    readonly kind: "extra_sequence";
    readonly pass: number;
    readonly extraLength: number;
  }
  | {
    readonly seq: number;
    readonly kind: "split_count";
    readonly pass: number;
    readonly splits: number;
  }
  | {
    readonly seq: number;
    readonly kind: "token_replaced";
    readonly step: number;
    readonly token: number;
  };

/** Falsification kinds only sequence records take. */
export const SERVING_FALSIFICATIONS = [
  "pass_shape",
  "extra_sequence",
  "split_count",
  "token_replaced",
] as const;
Object.freeze(SERVING_FALSIFICATIONS);

/** Parameters of each serving falsification kind. */
export const SERVING_FALSIFICATION_FIELDS: Readonly<
  Record<typeof SERVING_FALSIFICATIONS[number], readonly string[]>
> = {
  pass_shape: ["pass", "claimedRows"],
  extra_sequence: ["pass", "extraLength"],
  split_count: ["pass", "splits"],
  token_replaced: ["step", "token"],
};

/**
 * Validates the serving section.
 *
 * @param json parsed value
 * @returns the section
 * @throws {TypeError|RangeError} naming the bad field
 * @example
 * ```ts
 * import { parseServingScenario } from "./serving_scenario.ts";
 * const s = parseServingScenario({ stack: "s", components: {}, catalog: "c", multiProcessorCount: 108,
 *   checkpoints: ["tables/models/x"], requests: 3, arrivalSteps: 2, promptLengths: [4],
 *   generate: [2], tokenBudget: 16, maxChunk: 8, layerChain: true });
 * if (s.requests !== 3) throw new Error();
 * ```
 */
export function parseServingScenario(json: unknown): ServingScenario {
  const f = fieldsOf(json, "scenario.serving");
  onlyKnown(f, [
    "stack",
    "components",
    "catalog",
    "multiProcessorCount",
    "checkpoints",
    "requests",
    "arrivalSteps",
    "promptLengths",
    "generate",
    "tokenBudget",
    "maxChunk",
    "vllmTokenBudget",
    "maxSeqs",
    "layerChain",
    "parallel",
    "stacks",
  ]);
  const nonEmpty = (key: string, max: number) => {
    const v = ints(f, key, { min: 1, max });
    if (v.length === 0) throw new RangeError(`Cannot read 'scenario.serving.${key}': empty`);
    return v;
  };
  return {
    ...modelSection(f),
    requests: int(f, "requests", { min: 1, max: 1024 }),
    arrivalSteps: int(f, "arrivalSteps", { min: 1, max: 4096 }),
    promptLengths: nonEmpty("promptLengths", 4096),
    generate: nonEmpty("generate", 4096),
    tokenBudget: int(f, "tokenBudget", { min: 1, max: 65536 }),
    maxChunk: int(f, "maxChunk", { min: 1, max: 65536 }),
    ...(f.obj.vllmTokenBudget === undefined
      ? {}
      : { vllmTokenBudget: int(f, "vllmTokenBudget", { min: 1, max: 65536 }) }),
    ...(f.obj.maxSeqs === undefined ? {} : { maxSeqs: int(f, "maxSeqs", { min: 1, max: 65536 }) }),
    ...(f.obj.parallel === undefined ? {} : { parallel: scenarioParallelList(f)! }),
  };
}

/**
 * Reads the parameters of a serving falsification.
 *
 * @param f the falsification's fields
 * @param o its sequence number and kind
 * @returns the falsification
 * @throws {TypeError|RangeError} naming the bad field
 * @example
 * ```ts
 * import { parseServingFalsification } from "./serving_scenario.ts";
 * import { fieldsOf } from "../json_fields.ts";
 * const f = parseServingFalsification(fieldsOf({ step: 1, token: 7 }, "x"), { seq: 3, kind: "token_replaced" });
 * if (f.kind !== "token_replaced" || f.token !== 7) throw new Error();
 * ```
 */
export function parseServingFalsification(
  f: Fields,
  o: { readonly seq: number; readonly kind: typeof SERVING_FALSIFICATIONS[number] },
): ServingFalsification {
  const { seq, kind } = o;
  const pass = () => int(f, "pass", { min: 0, max: 1 << 16 });
  switch (kind) {
    case "pass_shape":
      return {
        seq,
        kind,
        pass: pass(),
        claimedRows: int(f, "claimedRows", { min: 1, max: 1 << 20 }),
      };
    case "extra_sequence":
      return { seq, kind, pass: pass(), extraLength: int(f, "extraLength", { min: 1, max: 4096 }) };
    case "split_count":
      return { seq, kind, pass: pass(), splits: int(f, "splits", { min: 1, max: 128 }) };
    case "token_replaced":
      return {
        seq,
        kind,
        step: int(f, "step", { min: 0, max: 4096 }),
        token: int(f, "token", { min: 0, max: 1 << 24 }),
      };
  }
}
