/**
 * Prover scenarios: the description a simulated prover turns into a claim log.
 *
 * ```
 * { "schema": "bitaudit.prover-scenario/v1", "logId", "seed",
 *   "hardware": {"profile", "count"}, "software": {"stack", "components"},
 *   "catalog": "<dispatch catalog id>",
 *   "model": {"name", "layers", "projections": [{"name", "n", "k"}, ..]},
 *   "batchSizes": [..], "records": <count>,
 *   "falsify": [{"seq", "kind": "batch_size"|"recipe"|"sku"|"fingerprint", ...params}] }
 * ```
 * Records cycle through layers x projections; batch sizes are drawn deterministically from the
 * seed. Falsifications: `batch_size` (the pass really ran `trueBatch` rows, the record claims
 * `claimedBatch`), `recipe` (a different kernel ran than the catalog dispatches), `sku` (computed on
 * `profile` with that GPU's own dispatch `catalog`, but the record names the scenario's GPU), `fingerprint` (one bit flipped).
 * Optional `blocks` (layer-block records, fingerprint falsifications only), `forward`
 * (model-forward records with their own falsifications, see `forward_scenario.ts`) and `serving`
 * (sequence records of a continuous-batching engine, see `serving_scenario.ts`) sections append
 * records after the GEMM records.
 *
 * @module
 */
import {
  arr,
  child,
  children,
  type Fields,
  fieldsOf,
  int,
  ints,
  oneOf,
  onlyKnown,
  str,
  stringMap,
} from "../json_fields.ts";
import {
  type BlockWorkload,
  fingerprintTensorMismatch,
  LOG_ID_PATTERN,
  ropeThetaRefusal,
} from "../claims/mod.ts";
import {
  FORWARD_FALSIFICATIONS,
  type ForwardFalsification,
  type ForwardScenario,
  parseForwardFalsification,
  parseForwardScenario,
} from "./forward_scenario.ts";
import {
  parseServingFalsification,
  parseServingScenario,
  SERVING_FALSIFICATION_FIELDS,
  SERVING_FALSIFICATIONS,
  type ServingFalsification,
  type ServingScenario,
} from "./serving_scenario.ts";

/** One falsification to inject. */
export type Falsification =
  | {
    readonly seq: number;
    readonly kind: "batch_size";
    readonly claimedBatch: number;
    readonly trueBatch: number;
  }
  | {
    readonly seq: number;
    readonly kind: "recipe";
    readonly recipe: Readonly<Record<string, unknown>>;
  }
  | {
    readonly seq: number;
    readonly kind: "sku";
    readonly profile: string;
    readonly catalog: string;
  }
  | { readonly seq: number; readonly kind: "fingerprint"; readonly bit: number }
  | ForwardFalsification
  | ServingFalsification;

/** A validated scenario. */
export interface Scenario {
  /** Id of the claim log to produce. */
  readonly logId: string;
  /** Seed of the synthetic tensors. */
  readonly seed: string;
  /** GPU profile id and the number of GPUs. */
  readonly hardware: { readonly profile: string; readonly count: number };
  /** Stack profile id and component versions. */
  readonly software: {
    readonly stack: string;
    readonly components: Readonly<Record<string, string>>;
  };
  /** Dispatch catalog id of the GEMMs. */
  readonly catalog: string;
  /** Model name, layers and the projections of a layer. */
  readonly model: {
    readonly name: string;
    readonly layers: number;
    readonly projections: readonly {
      readonly name: string;
      readonly n: number;
      readonly k: number;
    }[];
  };
  /** Batch sizes (tokens) the records cycle through. */
  readonly batchSizes: readonly number[];
  /** Number of GEMM records. */
  readonly records: number;
  /** Layer-block records appended after the GEMM records (optional). */
  readonly blocks?: BlockScenario;
  /** Model-forward records appended after the block records (optional). */
  readonly forward?: ForwardScenario;
  /** Sequence records of a continuous-batching engine, appended after the forward records. */
  readonly serving?: ServingScenario;
  /** Records to falsify, and how. */
  readonly falsify: readonly Falsification[];
}

/** Block records of a scenario: attention and FFN blocks alternating, one sequence each. */
export interface BlockScenario {
  /** Stack profile id (it fixes the attention backend and the SFU policy). */
  readonly stack: string;
  /** Component versions recorded in the claims. */
  readonly components: Readonly<Record<string, string>>;
  /** GEMM recipe of every projection (the stack's kernel source must be `recipe`). */
  readonly recipe: Readonly<Record<string, unknown>>;
  /** Layer sizes. */
  readonly shape: BlockWorkload["shape"];
  /** Prefill lengths, picked per record from the seed. */
  readonly tokens: readonly number[];
  /** Number of block records. */
  readonly records: number;
  /** Device SM count recorded for attention. */
  readonly multiProcessorCount: number;
  /** RoPE theta as a decimal string above 1 (the record's `rope.theta`, read by its rule). */
  readonly ropeTheta: string;
}

/**
 * Validates a scenario document.
 *
 * @param json parsed JSON
 * @returns the scenario
 * @throws {TypeError|RangeError} naming the bad field
 * @example
 * ```ts ignore
 * const s = parseScenario(JSON.parse(await Deno.readTextFile("demo/scenario.json")));
 * ```
 */
export function parseScenario(json: unknown): Scenario {
  const f = fieldsOf(json, "scenario");
  onlyKnown(f, [
    "schema",
    "logId",
    "seed",
    "hardware",
    "software",
    "catalog",
    "model",
    "batchSizes",
    "records",
    "blocks",
    "forward",
    "serving",
    "falsify",
  ]);
  if (str(f, "schema") !== "bitaudit.prover-scenario/v1") {
    throw new RangeError("Cannot read 'scenario.schema': expected 'bitaudit.prover-scenario/v1'");
  }
  const hw = child(f, "hardware", ["profile", "count"]);
  const sw = child(f, "software", ["stack", "components"]);
  const model = child(f, "model", ["name", "layers", "projections"]);
  const records = int(f, "records", { min: 1, max: 100_000 });
  const dims = { min: 1, max: 65536 };
  const blocks = f.obj.blocks === undefined ? undefined : _blocks(f.obj.blocks);
  const forward = f.obj.forward === undefined ? undefined : parseForwardScenario(f.obj.forward);
  const firstForward = records + (blocks?.records ?? 0);
  const serving = f.obj.serving === undefined ? undefined : parseServingScenario(f.obj.serving);
  const firstServing = firstForward + (forward?.records ?? 0);
  const total = firstServing +
    (serving === undefined ? 0 : serving.requests * serving.checkpoints.length);
  const projections = children(model, "projections", ["name", "n", "k"]).map((pf) => ({
    name: str(pf, "name"),
    n: int(pf, "n", dims),
    k: int(pf, "k", dims),
  }));
  // Each record draws a projection and a batch size; a layer's weights are held under the
  // projection's name, so two of one name would share the first one's weights.
  if (projections.length === 0) {
    throw new RangeError(
      "Cannot read 'scenario.model.projections': empty (a GEMM record needs one)",
    );
  }
  const names = new Set<string>();
  for (const [i, p] of projections.entries()) {
    if (names.has(p.name)) {
      throw new RangeError(
        `Cannot read 'scenario.model.projections[${i}].name': '${p.name}' is named twice`,
      );
    }
    names.add(p.name);
  }
  const batchSizes = _fewer(ints(f, "batchSizes", { min: 1, max: 65536 }), "scenario.batchSizes");
  if (batchSizes.length === 0) {
    throw new RangeError("Cannot read 'scenario.batchSizes': empty (a GEMM record needs one)");
  }
  const widest = _largest(batchSizes);
  for (const [i, p] of projections.entries()) {
    // Its records name their output `layers.<layer>.<name>.out`, a name the verifier holds them to.
    const named = fingerprintTensorMismatch("gemm", `layers.0.${p.name}.out`);
    if (named !== null) {
      throw new RangeError(
        `Cannot read 'scenario.model.projections[${i}].name': a GEMM record's output is ${named}`,
      );
    }
    _fits(`scenario.model.projections[${i}]`, { weights: p.n * p.k, input: widest * p.k });
    _fits(`scenario.model.projections[${i}]`, { output: widest * p.n });
  }
  return {
    logId: str(f, "logId", LOG_ID_PATTERN),
    seed: str(f, "seed"),
    hardware: { profile: str(hw, "profile"), count: int(hw, "count", { min: 1, max: 1 << 20 }) },
    software: { stack: str(sw, "stack"), components: stringMap(sw, "components") },
    catalog: str(f, "catalog"),
    model: {
      name: str(model, "name"),
      layers: int(model, "layers", { min: 1, max: 1024 }),
      projections,
    },
    batchSizes,
    records,
    ...(blocks === undefined ? {} : { blocks }),
    ...(forward === undefined ? {} : { forward }),
    ...(serving === undefined ? {} : { serving }),
    falsify: arr(f, "falsify").map((x, i) => {
      const fx = _falsification(x, `scenario.falsify[${i}]`, total);
      const forwardKinds: readonly string[] = [...FORWARD_FALSIFICATIONS, "sku", "fingerprint"];
      const servingKinds: readonly string[] = [...SERVING_FALSIFICATIONS, "fingerprint"];
      const special: readonly string[] = [...FORWARD_FALSIFICATIONS, ...SERVING_FALSIFICATIONS];
      const ok = fx.seq < records
        ? !special.includes(fx.kind)
        : fx.seq < firstForward
        ? fx.kind === "fingerprint"
        : fx.seq < firstServing
        ? forwardKinds.includes(fx.kind)
        : servingKinds.includes(fx.kind);
      if (!ok) {
        throw new RangeError(
          `Cannot read 'scenario.falsify[${i}]': record ${fx.seq} cannot take '${fx.kind}'`,
        );
      }
      return fx;
    }),
  };
}

/**
 * Most elements of one tensor a scenario record may hold: the verifier's limit on a recomputed
 * tensor (`MAX_RECOMPUTE_ELEMENTS`), so the simulated prover makes no record an inspector would
 * refuse, and never synthesizes gigabytes for one.
 */
const MAX_TENSOR_ELEMENTS = 2 ** 28;

/** Longest list of sizes a scenario cycles through (one per record at most). */
const MAX_SCENARIO_LIST = 4096;

/** The list, refused when longer than {@link MAX_SCENARIO_LIST}. */
function _fewer(list: readonly number[], where: string): readonly number[] {
  if (list.length > MAX_SCENARIO_LIST) {
    throw new RangeError(
      `Cannot read '${where}': ${list.length} entries, at most ${MAX_SCENARIO_LIST}`,
    );
  }
  return list;
}

/** The largest entry (0 for none), without spreading the list into arguments. */
function _largest(list: readonly number[]): number {
  let m = 0;
  for (const v of list) if (v > m) m = v;
  return m;
}

/** Refuses a record shape one of whose tensors would exceed {@link MAX_TENSOR_ELEMENTS}. */
function _fits(where: string, tensors: Readonly<Record<string, number>>): void {
  for (const [name, count] of Object.entries(tensors)) {
    if (count > MAX_TENSOR_ELEMENTS) {
      throw new RangeError(
        `Cannot read '${where}': its ${name} tensor would hold ${count} elements, more than ` +
          `${MAX_TENSOR_ELEMENTS} (the verifier's limit)`,
      );
    }
  }
}

function _blocks(json: unknown): BlockScenario {
  const f = fieldsOf(json, "scenario.blocks");
  onlyKnown(f, [
    "stack",
    "components",
    "recipe",
    "shape",
    "tokens",
    "records",
    "multiProcessorCount",
    "ropeTheta",
  ]);
  const sh = child(f, "shape", ["hidden", "intermediate", "heads", "kvHeads", "headDim"]);
  const dim = (key: string) => int(sh, key, { min: 1, max: 65536 });
  const tokens = _fewer(ints(f, "tokens", { min: 1, max: 4096 }), "scenario.blocks.tokens");
  const [hidden, intermediate, heads, kvHeads, headDim] = [
    dim("hidden"),
    dim("intermediate"),
    dim("heads"),
    dim("kvHeads"),
    dim("headDim"),
  ];
  const t = _largest(tokens);
  _fits("scenario.blocks.shape", {
    "gate/up/down": hidden * intermediate,
    "q/o": heads * headDim * hidden,
    "k/v": kvHeads * headDim * hidden,
    "hidden states": t * Math.max(hidden, intermediate, heads * headDim),
  });
  return {
    stack: str(f, "stack"),
    components: stringMap(f, "components"),
    recipe: child(f, "recipe").obj,
    shape: { hidden, intermediate, heads, kvHeads, headDim },
    tokens,
    records: int(f, "records", { min: 1, max: 10_000 }),
    multiProcessorCount: int(f, "multiProcessorCount", { min: 1, max: 4096 }),
    ropeTheta: _ropeTheta(f),
  };
}

/** The blocks' RoPE theta, held to the record's rule (`ropeThetaRefusal`). */
function _ropeTheta(f: Fields): string {
  const t = str(f, "ropeTheta");
  const refused = ropeThetaRefusal(t);
  if (refused !== null) f.fail(`${f.path}.ropeTheta`, refused, "range");
  return t;
}

function _falsification(json: unknown, path: string, records: number): Falsification {
  const f = fieldsOf(json, path);
  const kind = oneOf(
    f,
    "kind",
    [
      "batch_size",
      "recipe",
      "sku",
      "fingerprint",
      ...FORWARD_FALSIFICATIONS,
      ...SERVING_FALSIFICATIONS,
    ] as const,
  );
  const known = {
    batch_size: ["claimedBatch", "trueBatch"],
    recipe: ["recipe"],
    sku: ["profile", "catalog"],
    fingerprint: ["bit"],
    batch_composition: ["extraLength"],
    weight_flip: ["tensor", "index", "bit"],
    attention_backend: ["attention", "length"],
    stack_version: ["catalog"],
    parallelism: ["tp", "allReduce", "ep"],
    cuda_graphs: ["captureSizes"],
    ...SERVING_FALSIFICATION_FIELDS,
  };
  onlyKnown(f, ["seq", "kind", ...known[kind]]);
  const seq = int(f, "seq", { min: 0, max: records - 1 });
  switch (kind) {
    case "batch_size":
      return {
        seq,
        kind,
        claimedBatch: int(f, "claimedBatch", { min: 1, max: 65536 }),
        trueBatch: int(f, "trueBatch", { min: 1, max: 65536 }),
      };
    case "recipe":
      return { seq, kind, recipe: child(f, "recipe").obj };
    case "sku":
      return { seq, kind, profile: str(f, "profile"), catalog: str(f, "catalog") };
    case "fingerprint":
      return { seq, kind, bit: int(f, "bit", { min: 0, max: 255 }) };
    case "pass_shape":
    case "extra_sequence":
    case "split_count":
    case "token_replaced":
      return parseServingFalsification(f, { seq, kind });
    default:
      return parseForwardFalsification(f, { seq, kind });
  }
}
