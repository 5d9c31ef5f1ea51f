/**
 * The parallelism a scenario's model records run with and claim:
 * ```
 * "parallel": [{"tp": 1}, {"tp": 2}, {"tp": 4, "allReduce": {"kind": "nccl-tree", ...}},
 *              {"tp": 2, "ep": 2}, {"tp": 4, "interconnect": "pcie-p2p", ...}, ...]
 * ```
 * cycled over the section's records like its checkpoints. A topology is checked when the
 * scenario is read (the all-reduce's settings against its rank count); the stack's layout and
 * what it can split are checked when a record runs.
 *
 * @module
 */
import type { ClaimedAllReduceFields, ClaimPredicate } from "../claims/mod.ts";
import { InputError } from "../errors.ts";
import { type Fields, fieldsOf, int, onlyKnown } from "../json_fields.ts";
import {
  type ClaimedAllReduce,
  claimedAllReduceUnsupported,
  type Interconnect,
  interconnectContradiction,
  INTERCONNECTS,
  isInterconnect,
  parseClaimedAllReduce,
  type StackProfile,
  statedSettings,
} from "../kernels/mod.ts";
import { type DispatchGpu, tensorParallelOf } from "../resolve/mod.ts";
import type { TensorParallel } from "../model/mod.ts";

/** One topology of a scenario. */
export interface ScenarioParallel {
  /** Tensor-parallel ranks. */
  readonly tp: number;
  /** The all-reduce (required above 2 ranks). */
  readonly allReduce?: ClaimedAllReduce;
  /** Expert-parallel ranks (1, or tp: experts split over the TP ranks); default 1. */
  readonly ep?: number;
  /** How the ranks' GPUs are linked (tp above 1); absent: the stack's stated setup. */
  readonly interconnect?: Interconnect;
}

/**
 * Reads one topology.
 *
 * @param json parsed value
 * @param path where it sits, for messages
 * @returns the topology
 * @throws {TypeError|RangeError} naming the bad field
 * @example
 * ```ts
 * import { parseScenarioParallel } from "./scenario_parallel.ts";
 * if (parseScenarioParallel({ tp: 2 }, "x").tp !== 2) throw new Error();
 * ```
 */
export function parseScenarioParallel(json: unknown, path: string): ScenarioParallel {
  const f = fieldsOf(json, path);
  onlyKnown(f, ["tp", "allReduce", "ep", "interconnect"]);
  const tp = int(f, "tp", { min: 1, max: 64 });
  const ep = f.obj.ep === undefined ? 1 : int(f, "ep", { min: 1, max: 64 });
  if (ep !== 1 && ep !== tp) {
    throw new RangeError(`Cannot read '${path}.ep': expected 1 or tp (${tp}), got ${ep}`);
  }
  const link = f.obj.interconnect;
  if (link !== undefined && (!isInterconnect(link) || tp === 1)) {
    throw new RangeError(
      `Cannot read '${path}.interconnect': expected one of ${INTERCONNECTS.join(", ")} with tp ` +
        "above 1",
    );
  }
  const epField = {
    ...(ep === 1 ? {} : { ep }),
    ...(link === undefined ? {} : { interconnect: link }),
  };
  if (f.obj.allReduce === undefined) {
    if (tp > 2) throw new RangeError(`Cannot read '${path}': tp=${tp} needs an 'allReduce'`);
    return { tp, ...epField };
  }
  if (tp === 1) throw new RangeError(`Cannot read '${path}.allReduce': tp is 1`);
  const allReduce = parseClaimedAllReduce(f.obj.allReduce, tp);
  const why = claimedAllReduceUnsupported(allReduce);
  if (why !== null) throw new RangeError(`Cannot read '${path}.allReduce': ${why}`);
  return { tp, allReduce, ...epField };
}

/**
 * Reads a section's optional `parallel` list.
 *
 * @param f the section's fields
 * @returns the topologies, or undefined when absent
 * @throws {TypeError|RangeError} naming the bad entry
 * @example
 * ```ts
 * import { scenarioParallelList } from "./scenario_parallel.ts";
 * import { fieldsOf } from "../json_fields.ts";
 * if (scenarioParallelList(fieldsOf({ parallel: [{ tp: 1 }] }, "s"))!.length !== 1) throw new Error();
 * ```
 */
export function scenarioParallelList(f: Fields): readonly ScenarioParallel[] | undefined {
  const v = f.obj.parallel;
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length === 0 || v.length > 64) {
    throw new RangeError(`Cannot read '${f.path}.parallel': not a list of 1..64 topologies`);
  }
  return v.map((x, i) => parseScenarioParallel(x, `${f.path}.parallel[${i}]`));
}

/**
 * The split a topology runs with on a stack (undefined for one GPU).
 *
 * @param p the topology
 * @param stack the section's stack
 * @param gpu the GPU profile (vLLM's dispatch reads its compute capability and links)
 * @returns the split
 * @throws {InputError} `SCENARIO_INVALID` for an interconnect the GPU part cannot have
 *   (`interconnectContradiction`), `SCENARIO_UNSUPPORTED` when the stack cannot run it
 * @example
 * ```ts ignore
 * const parallel = runParallel({ tp: 2 }, stack, profile);
 * ```
 */
export function runParallel(
  p: ScenarioParallel | undefined,
  stack: StackProfile,
  gpu: DispatchGpu,
): TensorParallel | undefined {
  if (p === undefined) return undefined;
  const links = interconnectContradiction(gpu, { interconnect: p.interconnect, worldSize: p.tp });
  if (links !== null) {
    throw new InputError("SCENARIO_INVALID", `Cannot run tp=${p.tp}: ${links}`);
  }
  const r = tensorParallelOf(stack, {
    tp: p.tp,
    ep: p.ep ?? 1,
    allReduce: p.allReduce,
    links: { gpu, interconnect: p.interconnect },
  });
  if (!r.ok) throw new InputError("SCENARIO_UNSUPPORTED", `Cannot run tp=${p.tp}: ${r.reason}`);
  return r.parallel;
}

/**
 * The `parallelism` field a record of this topology claims.
 *
 * @param p the topology (undefined: one GPU)
 * @returns tp, pp, ep, dp, and the all-reduce and the interconnect when named
 * @example
 * ```ts
 * import { claimedParallelism } from "./scenario_parallel.ts";
 * if (claimedParallelism({ tp: 2 }).tp !== 2) throw new Error();
 * ```
 */
export function claimedParallelism(
  p: ScenarioParallel | undefined,
): ClaimPredicate["parallelism"] {
  const base = {
    tp: p?.tp ?? 1,
    pp: 1,
    ep: p?.ep ?? 1,
    dp: 1,
    ...(p?.interconnect === undefined ? {} : { interconnect: p.interconnect }),
  };
  return p?.allReduce === undefined
    ? base
    : { ...base, allReduce: p.allReduce as unknown as ClaimedAllReduceFields };
}

/**
 * The components a record of this topology states: the section's, with the NCCL settings that pin
 * its all-reduce where they do not state them. Above two ranks NCCL's tuner picks the algorithm,
 * protocol and channel count per message where the environment leaves them free, so a run the
 * verifier can replay sets them, and its record says so (`ncclEnvFinding`): NCCL_ALGO naming the
 * recorded algorithm, NCCL_PROTO its protocol and NCCL_MAX_NCHANNELS=1.
 *
 * @param components the section's stated components
 * @param p the record's claimed topology (undefined: one GPU)
 * @returns the components to record
 * @example
 * ```ts
 * import { topologyComponents } from "./scenario_parallel.ts";
 * const ring = { kind: "nccl-ring", protocol: "simple", chunkBytes: 2097152, rings: [[0, 1, 2, 3]] } as const;
 * const c = topologyComponents({ pytorch: "2.8.0" }, { tp: 4, allReduce: ring });
 * if (c.NCCL_ALGO !== "Ring" || c.NCCL_MAX_NCHANNELS !== "1") throw new Error();
 * if (topologyComponents({}, { tp: 2 }).NCCL_ALGO !== undefined) throw new Error();
 * ```
 */
export function topologyComponents(
  components: Readonly<Record<string, string>>,
  p: ScenarioParallel | undefined,
): Readonly<Record<string, string>> {
  const a = p?.allReduce;
  const nccl = a?.kind === "vllm-dispatch" ? (a as { nccl?: ClaimedAllReduce }).nccl : a;
  if (p === undefined || p.tp <= 2 || nccl === undefined) return components;
  if (nccl.kind !== "nccl-ring" && nccl.kind !== "nccl-tree") return components;
  const { protocol } = nccl as { protocol: string };
  // By exact name, as NCCL (getenv) and `ncclEnvFinding` read them: `nccl_algo` pins nothing.
  const stated = new Set(statedSettings(components).map(([name]) => name));
  const pins: [string, string][] = [
    ["NCCL_ALGO", nccl.kind === "nccl-ring" ? "Ring" : "Tree"],
    ["NCCL_PROTO", protocol === "simple" ? "Simple" : protocol.toUpperCase()],
    ["NCCL_MAX_NCHANNELS", "1"],
  ];
  return {
    ...components,
    ...Object.fromEntries(pins.filter(([name]) => !stated.has(name))),
  };
}
