/**
 * What a record's stated NCCL environment says of its recorded NCCL all-reduce. The replay runs
 * the algorithm, protocol and single channel the record names; a stated environment that rules
 * them out (`NCCL_ALGO=^tree` beside a recorded tree, `NCCL_PROTO=LL128` beside Simple,
 * `NCCL_MIN_NCHANNELS=4` beside one channel) describes another run: the record contradicts
 * itself. One that leaves NCCL free to take more channels (`NCCL_MAX_NCHANNELS=4` without a
 * minimum) does not pin the single channel the replay assumes.
 *
 * Read as NCCL reads them: names and values without case, a list separated by commas, `^` in
 * front for the ones left out, and per-collective lists (`allreduce:tree;broadcast:ring`) of which
 * only the all-reduce's counts.
 *
 * @module
 */
import {
  type ClaimedAllReduce,
  type ClaimedNcclAllReduce,
  VLLM_DISPATCH,
} from "./claimed_all_reduce.ts";

/** How the stated environment bears on the recorded NCCL all-reduce. */
export interface NcclEnvFinding {
  /**
   * `contradiction`: the environment rules out what the record names; `unpinned`: it lets NCCL
   * take more than the one channel the replay runs.
   */
  readonly kind: "contradiction" | "unpinned";
  /** One line naming the variable and what the record names. */
  readonly reason: string;
}

/**
 * Compares a record's stated NCCL settings with its recorded NCCL all-reduce.
 *
 * @param stated every `NAME=VALUE` the record states (e.g. `statedSettings` of its components)
 * @param recorded the recorded all-reduce (its NCCL part: the all-reduce itself, or how NCCL ran
 *   under vLLM's dispatch; none: nothing to compare)
 * @returns the first contradiction, else a setting that leaves the channel count free, or null
 * @example
 * ```ts
 * import { ncclEnvFinding } from "./nccl_env.ts";
 * const tree = { kind: "nccl-tree", protocol: "simple", trees: [{ down: [[1], []] }] } as const;
 * if (ncclEnvFinding([["NCCL_ALGO", "Tree"], ["NCCL_PROTO", "Simple"]], tree) !== null) {
 *   throw new Error();
 * }
 * if (ncclEnvFinding([["NCCL_ALGO", "^tree"]], tree)?.kind !== "contradiction") throw new Error();
 * ```
 */
export function ncclEnvFinding(
  stated: readonly (readonly [string, string])[],
  recorded: ClaimedAllReduce | undefined,
): NcclEnvFinding | null {
  const nccl = _ncclOf(recorded);
  if (nccl === undefined) return null;
  const algorithm = nccl.kind === "nccl-ring" ? "ring" : "tree";
  let unpinned: NcclEnvFinding | null = null;
  let least: number | undefined;
  let most: { value: number; name: string } | undefined;
  for (const [rawName, rawValue] of stated) {
    const name = rawName.toUpperCase();
    const value = rawValue.trim();
    const ruled = name === "NCCL_ALGO"
      ? _rulesOut(value, algorithm)
      : name === "NCCL_PROTO"
      ? _rulesOut(value, nccl.protocol)
      : false;
    if (ruled) {
      return {
        kind: "contradiction",
        reason: `the stated ${rawName}=${rawValue} rules out the recorded all-reduce's ` +
          `${name === "NCCL_ALGO" ? `algorithm (${algorithm})` : `protocol (${nccl.protocol})`}`,
      };
    }
    const count = /^\d{1,9}$/.test(value) ? Number(value) : undefined;
    if (count === undefined) continue;
    if (name === "NCCL_MIN_NCHANNELS" || name === "NCCL_MIN_CTAS") {
      least = Math.max(least ?? 0, count);
      if (count > 1) {
        return {
          kind: "contradiction",
          reason: `the stated ${rawName}=${rawValue} makes NCCL split each message over at ` +
            "least that many channels; the record's all-reduce runs one",
        };
      }
    }
    if (name === "NCCL_MAX_NCHANNELS" || name === "NCCL_MAX_CTAS") {
      if (most === undefined || count < most.value) most = { value: count, name: rawName };
    }
  }
  if (most !== undefined && most.value > 1 && (least ?? 0) <= 1) {
    unpinned = {
      kind: "unpinned",
      reason: `the stated ${most.name}=${most.value} lets NCCL use up to that many channels; the ` +
        "one-channel replay is vouched for only where NCCL_MAX_NCHANNELS=1 pins it",
    };
  }
  return unpinned;
}

/** The NCCL part of a recorded all-reduce, if any. */
function _ncclOf(a: ClaimedAllReduce | undefined): ClaimedNcclAllReduce | undefined {
  if (a === undefined) return undefined;
  if (a.kind === "nccl-ring" || a.kind === "nccl-tree") return a as ClaimedNcclAllReduce;
  return a.kind === VLLM_DISPATCH ? (a as { nccl?: ClaimedNcclAllReduce }).nccl : undefined;
}

/**
 * Whether an NCCL algorithm or protocol list leaves `choice` out: a list naming others only, or
 * one with `^` naming it; for per-collective lists, the all-reduce's (none: nothing said).
 */
function _rulesOut(value: string, choice: string): boolean {
  let list = value.toLowerCase().replace(/\s+/g, "");
  if (list.includes(":")) {
    const own = list.split(";").map((p) => p.split(":")).find(([c]) => c === "allreduce");
    if (own === undefined || own.length !== 2) return false;
    list = own[1]!;
  }
  const leftOut = list.startsWith("^");
  const names = (leftOut ? list.slice(1) : list).split(",").filter((n) => n !== "");
  if (names.length === 0) return false;
  return leftOut ? names.includes(choice) : !names.includes(choice);
}
