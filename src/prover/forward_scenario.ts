/**
 * The model-forward section of a prover scenario and its falsifications:
 * ```
 * "forward": { "stack", "components",   (or "stacks": [{"stack", "components"}, ...], cycled
 *                                          over the records; not both)
 *              "catalog", "multiProcessorCount",
 *              "checkpoints": ["tables/models/<dir>", ...],   (bundled assets, used in turn)
 *              "records", "batchSizes": [..], "lengths": [..], "padTokenId", "layerChain": bool,
 *              "parallel"?: [{"tp", "allReduce"?}, ...] }       (cycled over the records)
 * ```
 * Each record's batch (how many sequences, their lengths, their ids) is drawn from the seed.
 * Falsifications of forward records: `fingerprint` (one bit flipped), `batch_composition` (the
 * pass ran with one more sequence of `extraLength` tokens than the record states), `sku`
 * (computed on `profile` with that GPU's `catalog`), `weight_flip` (computed with bit `bit` of
 * element `index` of `tensor` flipped, the record names the honest checkpoint),
 * `attention_backend` (computed with another FA2 build; the record runs one sequence of
 * `length` tokens, so that either backend can run it unpadded: the two builds differ in rare
 * low-order bits, which long rows reach), `stack_version` (another library release's dispatch
 * `catalog`), `parallelism` (the pass ran with tensor-parallel size `tp` and the all-reduce
 * `allReduce` (and expert-parallel size `ep`), the record claims its section's topology),
 * `cuda_graphs` (the pass ran inside
 * piecewise CUDA graphs captured at `captureSizes`, so its launches were padded; the record
 * claims its stack, which runs eagerly).
 *
 * @module
 */
import { type Fields, fieldsOf, int, ints, onlyKnown, str } from "../json_fields.ts";
import { type ModelSection, modelSection } from "./scenario_checkpoint.ts";
import {
  parseScenarioParallel,
  type ScenarioParallel,
  scenarioParallelList,
} from "./scenario_parallel.ts";

/** The forward section. */
export interface ForwardScenario extends ModelSection {
  /** Number of forward records to make. */
  readonly records: number;
  /** Batch sizes cycled through, one per record. */
  readonly batchSizes: readonly number[];
  /** Sequence lengths cycled through within a batch. */
  readonly lengths: readonly number[];
  /** Token id used to pad sequences to the longest one. */
  readonly padTokenId: number;
  /** Topologies cycled over the records (absent: one GPU each). */
  readonly parallel?: readonly ScenarioParallel[];
}

/** A falsification of a forward record. */
export type ForwardFalsification =
  | { readonly seq: number; readonly kind: "batch_composition"; readonly extraLength: number }
  | {
    readonly seq: number;
    readonly kind: "weight_flip";
    readonly tensor: string;
    readonly index: number;
    readonly bit: number;
  }
  | {
    readonly seq: number;
    readonly kind: "attention_backend";
    readonly attention: string;
    readonly length: number;
  }
  | { readonly seq: number; readonly kind: "stack_version"; readonly catalog: string }
  | { readonly seq: number; readonly kind: "parallelism"; readonly ran: ScenarioParallel }
  | {
    readonly seq: number;
    readonly kind: "cuda_graphs";
    readonly captureSizes: readonly number[];
  };

/** Falsification kinds only forward records take. */
export const FORWARD_FALSIFICATIONS = [
  "batch_composition",
  "weight_flip",
  "attention_backend",
  "stack_version",
  "parallelism",
  "cuda_graphs",
] as const;
Object.freeze(FORWARD_FALSIFICATIONS);

/**
 * Validates the forward section.
 *
 * @param json parsed value
 * @returns the section
 * @throws {TypeError|RangeError} naming the bad field
 * @example
 * ```ts
 * import { parseForwardScenario } from "./forward_scenario.ts";
 * const f = parseForwardScenario({ stack: "s", components: {}, catalog: "c", multiProcessorCount: 108,
 *   checkpoints: ["tables/models/x"], records: 2, batchSizes: [1], lengths: [4], padTokenId: 0,
 *   layerChain: true });
 * if (f.records !== 2) throw new Error();
 * ```
 */
export function parseForwardScenario(json: unknown): ForwardScenario {
  const f = fieldsOf(json, "scenario.forward");
  onlyKnown(f, [
    "stack",
    "components",
    "catalog",
    "multiProcessorCount",
    "checkpoints",
    "records",
    "batchSizes",
    "lengths",
    "padTokenId",
    "layerChain",
    "parallel",
    "stacks",
  ]);
  const nonEmpty = (key: string, max: number) => {
    const v = ints(f, key, { min: 1, max });
    if (v.length === 0) throw new RangeError(`Cannot read 'scenario.forward.${key}': empty`);
    return v;
  };
  return {
    ...modelSection(f),
    records: int(f, "records", { min: 1, max: 10_000 }),
    batchSizes: nonEmpty("batchSizes", 64),
    lengths: nonEmpty("lengths", 4096),
    padTokenId: int(f, "padTokenId", { min: 0, max: 1 << 24 }),
    ...(f.obj.parallel === undefined ? {} : { parallel: scenarioParallelList(f)! }),
  };
}

/**
 * Reads the parameters of a forward-only falsification.
 *
 * @param f the falsification's fields
 * @param o its sequence number and kind
 * @returns the falsification
 * @throws {TypeError|RangeError} naming the bad field
 * @example
 * ```ts
 * import { parseForwardFalsification } from "./forward_scenario.ts";
 * import { fieldsOf } from "../json_fields.ts";
 * const f = parseForwardFalsification(fieldsOf({ extraLength: 16 }, "x"), { seq: 3, kind: "batch_composition" });
 * if (f.kind !== "batch_composition" || f.extraLength !== 16) throw new Error();
 * ```
 */
export function parseForwardFalsification(
  f: Fields,
  o: { readonly seq: number; readonly kind: typeof FORWARD_FALSIFICATIONS[number] },
): ForwardFalsification {
  const { seq, kind } = o;
  switch (kind) {
    case "batch_composition":
      return { seq, kind, extraLength: int(f, "extraLength", { min: 1, max: 4096 }) };
    case "weight_flip":
      return {
        seq,
        kind,
        tensor: str(f, "tensor", /^[A-Za-z0-9._]{1,200}$/),
        index: int(f, "index", { min: 0, max: 2 ** 40 }),
        bit: int(f, "bit", { min: 0, max: 15 }),
      };
    case "attention_backend":
      return {
        seq,
        kind,
        attention: str(f, "attention"),
        length: int(f, "length", { min: 1, max: 4096 }),
      };
    case "stack_version":
      return { seq, kind, catalog: str(f, "catalog") };
    case "parallelism":
      return {
        seq,
        kind,
        ran: parseScenarioParallel({
          tp: f.obj.tp,
          allReduce: f.obj.allReduce,
          ...(f.obj.ep === undefined ? {} : { ep: f.obj.ep }),
        }, f.path),
      };
    case "cuda_graphs": {
      // Bounded before the list is read (a scenario is the prover's input too).
      const raw = f.obj.captureSizes;
      if (Array.isArray(raw) && raw.length > 1024) {
        throw new RangeError(`Cannot read '${f.path}.captureSizes': more than 1024 sizes`);
      }
      const sizes = ints(f, "captureSizes", { min: 1, max: 65536 });
      if (sizes.length === 0 || sizes.some((v, i) => i > 0 && v <= sizes[i - 1]!)) {
        throw new RangeError(
          `Cannot read '${f.path}.captureSizes': expected 1 to 1024 ascending sizes`,
        );
      }
      return { seq, kind, captureSizes: sizes };
    }
  }
}
