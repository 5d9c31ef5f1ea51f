/**
 * What a record's stated NCCL environment says of its recorded NCCL all-reduce. The replay runs
 * the algorithm, protocol and single channel the record names; a stated environment that rules
 * them out (`NCCL_ALGO=^tree` beside a recorded tree, `NCCL_PROTO=LL128` beside Simple,
 * `NCCL_MIN_NCHANNELS=4` beside one channel) describes another run: the record contradicts
 * itself. One that leaves NCCL free to take more channels (`NCCL_MAX_NCHANNELS=4` without a
 * minimum), or another algorithm or protocol beside the recorded one (`NCCL_ALGO=Ring,Tree`,
 * `NCCL_PROTO=^LL`, which leaves LL128 and Simple), does not pin what the replay assumes: NCCL's
 * tuner picks the algorithm, protocol and channel count per message size among those allowed, so
 * the record's one statement need not hold for every message.
 *
 * A variable stated twice with different values (two components) leaves open which one NCCL
 * read: unpinned. So does one not stated at all where it bears on the order, with more than two
 * ranks: NCCL_ALGO, NCCL_MAX_NCHANNELS and, for a ring (whose chunking follows the protocol),
 * NCCL_PROTO. Two ranks add two values whatever NCCL chose.
 *
 * What NCCL 2.27 builds from a pinned environment is held to as well: a Simple ring's chunk is
 * `calcCollChunking`'s 2 MiB with NCCL_BUFFSIZE unset ({@link NCCL_SIMPLE_RING_CHUNK_BYTES}), so a
 * recorded ring of another chunk size is no run of it (LL and LL128 chunk sizes are not derived
 * here: unpinned); on one machine (a tensor-parallel group is refused past the machine's GPUs)
 * NCCL's tree is its intra-node chain, each rank with at most one child, so a recorded tree that
 * branches is no run of it either.
 *
 * Read as NCCL reads them: names exactly (getenv; `nccl_algo` is not NCCL's), values without
 * case, a list separated by commas, `^` in front for the ones left out, and per-collective lists (`allreduce:tree;broadcast:ring`) of which
 * only the all-reduce's counts.
 *
 * @module
 */
import {
  type ClaimedAllReduce,
  type ClaimedNcclAllReduce,
  VLLM_DISPATCH,
} from "./claimed_all_reduce.ts";
import { NCCL_SIMPLE_RING_CHUNK_BYTES } from "./nccl_cbd.ts";

/** How the stated environment bears on the recorded NCCL all-reduce. */
export interface NcclEnvFinding {
  /**
   * `contradiction`: the environment rules out what the record names; `unpinned`: it lets NCCL
   * take more than the one channel the replay runs, or another algorithm or protocol beside the
   * recorded one.
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
 * @returns the first contradiction (of the environment, or of what NCCL builds under it), else a
 *   setting, or the lack of one, that leaves the channel count, algorithm, protocol or chunk size
 *   free, or null
 * @example
 * ```ts
 * import { ncclEnvFinding } from "./nccl_env.ts";
 * const tree = { kind: "nccl-tree", protocol: "simple", trees: [{ down: [[1], [2], []] }] } as const;
 * const pinned = [["NCCL_ALGO", "Tree"], ["NCCL_PROTO", "Simple"], ["NCCL_MAX_NCHANNELS", "1"]] as const;
 * if (ncclEnvFinding(pinned, tree) !== null) throw new Error();
 * const star = { ...tree, trees: [{ down: [[1, 2], [], []] }] };
 * if (ncclEnvFinding(pinned, star)?.kind !== "contradiction") throw new Error("not a chain");
 * if (ncclEnvFinding([["NCCL_ALGO", "^tree"]], tree)?.kind !== "contradiction") throw new Error();
 * if (ncclEnvFinding([["NCCL_ALGO", "Ring,Tree"]], tree)?.kind !== "unpinned") throw new Error();
 * ```
 */
export function ncclEnvFinding(
  stated: readonly (readonly [string, string])[],
  recorded: ClaimedAllReduce | undefined,
): NcclEnvFinding | null {
  const nccl = _ncclOf(recorded);
  if (nccl === undefined) return null;
  // Every value stated of each variable (components are a map: no order says which came last).
  const values = new Map<string, { name: string; value: string }[]>();
  for (const [name, value] of stated) {
    // NCCL reads its variables with getenv, whose names are case-sensitive: `nccl_algo` is no
    // setting of NCCL's, neither a pin nor a contradiction.
    if (!name.startsWith("NCCL_")) continue;
    values.set(name, [...(values.get(name) ?? []), { name, value: value.trim() }]);
  }
  let unpinned: NcclEnvFinding | null = null;
  const said = (name: string) => {
    const all = values.get(name);
    if (all === undefined) return undefined;
    if (new Set(all.map((v) => v.value)).size > 1) {
      unpinned ??= {
        kind: "unpinned",
        reason: `the record states ${name} with different values (${
          all.map((v) => `${v.name}=${v.value}`).join(", ")
        }); which one NCCL read is not known`,
      };
      return undefined;
    }
    const s = all[0]!;
    return { ...s, text: `${s.name}=${s.value}` };
  };
  const shape = _builtShape(nccl, { buffSizeStated: values.has("NCCL_BUFFSIZE") });
  if (shape?.kind === "contradiction") return shape;
  unpinned ??= shape;
  // Above two ranks the order of each element's sum depends on the algorithm, the channel
  // count and (for a ring, through its chunking) the protocol; NCCL's tuner picks them per
  // message size and topology where the environment does not, so each must be stated. Two ranks
  // add two values whichever way: nothing to pin.
  const ranks = _ranks(nccl);
  const unstated = (name: string, what: string) => {
    if (ranks <= 2) return;
    unpinned ??= {
      kind: "unpinned",
      reason: `the record states no ${name} that pins the all-reduce's ${what}; with ` +
        `${ranks} ranks NCCL's tuner picks it per message size and topology, so the ` +
        "recorded one is not vouched for",
    };
  };
  const ring = nccl.kind === "nccl-ring";
  // Each choice: the variable, the recorded value, what it picks, its names, whether it bears on
  // the order (a tree's protocol does not).
  const choices = [
    ["NCCL_ALGO", ring ? "ring" : "tree", "algorithm", _ALGORITHMS, true],
    ["NCCL_PROTO", nccl.protocol, "protocol", _PROTOCOLS, ring],
  ] as const;
  for (const [name, choice, what, names, bears] of choices) {
    // Not stated at all (two values are unpinned by `said`).
    if (bears && !values.has(name)) unstated(name, what);
    const s = said(name);
    if (s === undefined) continue;
    const allowed = _allReduceList(s.value, names);
    // Stated for other collectives only.
    if (bears && allowed === null) unstated(name, what);
    if (allowed === "unreadable") {
      unpinned ??= {
        kind: "unpinned",
        reason: `the stated ${s.text} cannot be read as an NCCL list; the recorded ${what} ` +
          `(${choice}) is not vouched for`,
      };
    } else if (allowed !== null && !allowed.has(choice)) {
      return {
        kind: "contradiction",
        reason: `the stated ${s.text} rules out the recorded all-reduce's ${what} (${choice})`,
      };
    } else if (allowed !== null && allowed.size > 1) {
      // NCCL's tuner picks among the allowed ones per message size (tuning.cc): the record's one
      // statement is not pinned for every message.
      unpinned ??= {
        kind: "unpinned",
        reason: `the stated ${s.text} lets NCCL's tuner pick the all-reduce's ${what} per ` +
          `message size (${[...allowed].join(", ")}); the recorded ${what} (${choice}) is ` +
          `vouched for only where ${name} allows it alone`,
      };
    }
  }
  const least = _channels(said("NCCL_MIN_NCHANNELS") ?? said("NCCL_MIN_CTAS"));
  const most = _channels(said("NCCL_MAX_NCHANNELS") ?? said("NCCL_MAX_CTAS"));
  if (least !== null && least.count !== null && least.count > 1) {
    return {
      kind: "contradiction",
      reason: `the stated ${least.text} makes NCCL split each message over at least that many ` +
        "channels; the record's all-reduce runs one",
    };
  }
  for (const c of [least, most]) {
    if (c !== null && c.count === null) {
      unpinned ??= {
        kind: "unpinned",
        reason: `the stated ${c.text} cannot be read as a channel count; the one-channel replay ` +
          "is not vouched for",
      };
    }
  }
  if (most === null && !values.has("NCCL_MAX_NCHANNELS") && !values.has("NCCL_MAX_CTAS")) {
    unstated("NCCL_MAX_NCHANNELS", "channel count");
  }
  if (most !== null && most.count !== null && most.count > 1) {
    unpinned ??= {
      kind: "unpinned",
      reason: `the stated ${most.text} lets NCCL use up to that many channels; the one-channel ` +
        "replay is vouched for only where NCCL_MAX_NCHANNELS=1 pins it",
    };
  }
  if (most !== null && most.count !== null && most.count < 1) {
    // -2 is NCCL_MAX_NCHANNELS's own "unset" (graph/connect.cc), and a MAX_CTAS of 0 or below is
    // ignored as too low (init.cc envConfigOverride): none of them pins one channel.
    unpinned ??= {
      kind: "unpinned",
      reason: `the stated ${most.text} does not pin one channel (NCCL reads a value below 1 as ` +
        "unset or ignores it); the one-channel replay is vouched for only where " +
        "NCCL_MAX_NCHANNELS=1 pins it",
    };
  }
  return unpinned;
}

/**
 * What NCCL 2.27 builds under an environment that leaves its buffers at their defaults, against
 * the recorded all-reduce: a Simple ring's chunk size, a tree's shape on one machine.
 */
function _builtShape(
  nccl: ClaimedNcclAllReduce,
  o: { readonly buffSizeStated: boolean },
): NcclEnvFinding | null {
  if (nccl.kind === "nccl-tree") {
    const down = nccl.trees[0]!.down;
    const rank = down.findIndex((children) => children.length > 1);
    if (rank < 0) return null;
    return {
      kind: "contradiction",
      reason: `the recorded tree gives rank ${rank} ${down[rank]!.length} children; on one ` +
        "machine NCCL's tree all-reduce is its intra-node chain (each rank at most one child)",
    };
  }
  if (nccl.protocol !== "simple") {
    return {
      kind: "unpinned",
      reason: `the chunk size NCCL computes for a ${nccl.protocol} ring is not derived here; ` +
        `the recorded ${nccl.chunkBytes} bytes are not vouched for`,
    };
  }
  if (o.buffSizeStated || nccl.chunkBytes === NCCL_SIMPLE_RING_CHUNK_BYTES) return null;
  return {
    kind: "contradiction",
    reason: `the recorded ring's chunk of ${nccl.chunkBytes} bytes is not NCCL's: a Simple ` +
      `ring's chunk is ${NCCL_SIMPLE_RING_CHUNK_BYTES} bytes with NCCL_BUFFSIZE unset ` +
      "(calcCollChunking: 4 MiB / NCCL_STEPS 8 x ALLREDUCE_CHUNKSTEPS 4)",
  };
}

/** A stated channel count read as NCCL reads it (`strtoll` base 0), or null where it cannot be. */
function _channels(
  s: { readonly value: string; readonly text: string } | undefined,
): { count: number | null; text: string } | null {
  if (s === undefined) return null;
  const m = /^([+-]?)(0x[0-9a-f]+|0[0-7]*|[1-9][0-9]*)$/i.exec(s.value);
  if (m === null || m[2]!.length > 12) return { count: null, text: s.text };
  const digits = m[2]!;
  const n = /^0x/i.test(digits)
    ? parseInt(digits.slice(2), 16)
    : digits.length > 1 && digits.startsWith("0")
    ? parseInt(digits.slice(1), 8)
    : parseInt(digits, 10);
  return { count: m[1] === "-" ? -n : n, text: s.text };
}

/** The rank count of a recorded NCCL all-reduce. */
function _ranks(nccl: ClaimedNcclAllReduce): number {
  return nccl.kind === "nccl-ring" ? nccl.rings[0]!.length : nccl.trees[0]!.down.length;
}

/** The NCCL part of a recorded all-reduce, if any. */
function _ncclOf(a: ClaimedAllReduce | undefined): ClaimedNcclAllReduce | undefined {
  if (a === undefined) return undefined;
  if (a.kind === "nccl-ring" || a.kind === "nccl-tree") return a as ClaimedNcclAllReduce;
  return a.kind === VLLM_DISPATCH ? (a as { nccl?: ClaimedNcclAllReduce }).nccl : undefined;
}

/**
 * NCCL 2.27's algorithm names (`ncclAlgoStr`, src/init.cc:45), as NCCL_ALGO reads them (without
 * case).
 */
const _ALGORITHMS = ["tree", "ring", "collnetdirect", "collnetchain", "nvls", "nvlstree", "pat"];

/** Algorithms NCCL 2.27 never runs an all-reduce with (src/graph/tuning.cc:259: PAT). */
const _NO_ALL_REDUCE = new Set(["pat"]);

/** NCCL 2.27's protocol names (`ncclProtoStr`, src/init.cc:46), as NCCL_PROTO reads them. */
const _PROTOCOLS = ["ll", "ll128", "simple"];

/**
 * What an NCCL algorithm or protocol list allows the all-reduce: the names it leaves enabled, null
 * where it says nothing of the all-reduce, or "unreadable". NCCL's form (tuning.cc `parseList`):
 * `;`-separated entries, a first one without a collective applying to every collective,
 * `collective:list` ones to that collective; a list is comma-separated names, `^` in front
 * leaving them out of all of `names`. A name NCCL does not know makes NCCL refuse the list
 * ("Unrecognized element token"): unreadable.
 */
function _allReduceList(
  value: string,
  names: readonly string[],
): ReadonlySet<string> | null | "unreadable" {
  const entries = value.toLowerCase().replace(/\s+/g, "").split(";").filter((e) => e !== "");
  let list: string | undefined;
  for (const [i, entry] of entries.entries()) {
    const parts = entry.split(":");
    if (parts.length > 2) return "unreadable";
    if (parts.length === 1) {
      if (i !== 0) return "unreadable"; // only the first entry may name no collective
      list ??= parts[0]!;
    } else if (parts[0] === "allreduce") list = parts[1]!;
  }
  if (list === undefined) return null;
  const leftOut = list.startsWith("^");
  const listed = (leftOut ? list.slice(1) : list).split(",");
  if (listed.some((n) => !names.includes(n))) return "unreadable";
  const enabled = leftOut ? names.filter((n) => !listed.includes(n)) : listed;
  return new Set(enabled.filter((n) => !_NO_ALL_REDUCE.has(n)));
}
