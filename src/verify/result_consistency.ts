/**
 * The rules a record result must obey to mean what its status says. A result is data that
 * crosses machines (shard files, pool messages, signed verdicts), so whoever reads one checks
 * that its fields agree with its status before believing it:
 *
 * - PASS: recomputed equals claimed, nothing differs, no finding; with its pipeline trace, every
 *   step succeeded and the steps a PASS of its workload kind needs are all there;
 * - FAIL: a finding, and fields that show it (a differing fingerprint, a matching fingerprint
 *   with a diverging chain or a wrong token, a broken obligation, a contradiction found before
 *   anything was recomputed); with its trace, the last step is the one that failed;
 * - NOT_VERIFIED: no finding, no difference, the last traced step says what stopped it;
 * - any status: each SFU function it lists appears in its evidence list (when it has one) at the
 *   level the function's status gives.
 *
 * @module
 */
import type { FailFinding, RecordResult } from "./record_result.ts";
import { _sfuEvidence } from "./_record_evidence.ts";

/** Steps every PASS went through, whatever its workload kind. */
const COMMON_STEPS = [
  "inclusion",
  "profile",
  "stack",
  "support",
  "tensors",
  "recompute",
  "compare",
];

/** Extra steps of a PASS, per workload kind; a kind not listed here cannot PASS. */
const PASS_STEPS: Readonly<Record<string, readonly string[]>> = {
  gemm: ["kernel"],
  attention_block: [],
  ffn_block: [],
  model_forward: ["kernel"],
  sequence: ["kernel", "tokens"],
};

/** Workload kinds whose claims carry a layer chain, the only ones a layer-chain FAIL can be about. */
const CHAIN_KINDS: readonly string[] = ["model_forward", "sequence"];

/** Workload kinds whose claims carry greedy tokens, the only ones a greedy-token FAIL can be about. */
const TOKEN_KINDS: readonly string[] = ["sequence"];

/** Every finding a FAIL may state (a record, so a new member is a compile error here). */
export const FAIL_FINDINGS: Readonly<Record<FailFinding, true>> = Object.freeze({
  fingerprint: true,
  "layer-chain": true,
  "greedy-token": true,
  "committed-input": true,
  contradiction: true,
});

/** The fields of a result the rules read (a signed verdict result carries no trace). */
export type CheckedResult =
  & Pick<
    RecordResult,
    "status" | "reason" | "claimed" | "recomputed" | "firstDifference" | "obligation" | "finding"
  >
  & {
    readonly steps?: RecordResult["steps"] | undefined;
    readonly firstDivergence?: RecordResult["firstDivergence"] | undefined;
    readonly evidence?: RecordResult["evidence"] | undefined;
    readonly sfu?: RecordResult["sfu"] | undefined;
  };

/**
 * Says how a result contradicts its own status, or `null` when it is consistent.
 *
 * @param r the result (with `steps` when it carries its trace)
 * @param options `kind`: the record's workload kind, to require the steps of its PASS (only with a
 *   trace) and to refuse a layer chain where its claim has none; `chain`: whether `firstDivergence` is part of the form being checked (a layer-chain
 *   FAIL must then carry it)
 * @returns the first inconsistency, or null
 * @example
 * ```ts
 * import { resultInconsistency } from "./result_consistency.ts";
 * const fp = "ab".repeat(32);
 * const forged = {
 *   status: "PASS", reason: "ok", claimed: fp, recomputed: "cd".repeat(32),
 *   firstDifference: null,
 * } as const;
 * if (resultInconsistency(forged, { chain: true }) === null) throw new Error("accepted");
 * ```
 */
export function resultInconsistency(
  r: CheckedResult,
  options: { kind?: string; chain: boolean },
): string | null {
  if (r.status !== "PASS" && r.reason.length === 0) return `a ${r.status} gives no reason`;
  if (r.status !== "FAIL" && (r.finding !== undefined || r.obligation !== undefined)) {
    return `a ${r.status} states a finding`;
  }
  if (r.status !== "FAIL" && r.firstDifference !== null) return `a ${r.status} has a difference`;
  if (r.status !== "FAIL" && r.firstDivergence !== undefined) {
    return `a ${r.status} has a diverging layer`;
  }
  const chained = r.finding === "layer-chain" || r.firstDivergence !== undefined;
  if (chained && options.kind !== undefined && !CHAIN_KINDS.includes(options.kind)) {
    return `a layer-chain result about a ${options.kind} record, whose claim has no layer chain`;
  }
  if (
    r.finding === "greedy-token" && options.kind !== undefined &&
    !TOKEN_KINDS.includes(options.kind)
  ) {
    return `a greedy-token FAIL about a ${options.kind} record, whose claim has no greedy tokens`;
  }
  if (r.evidence !== undefined && r.recomputed === null) {
    return `a ${r.status} lists evidence without a recomputation`;
  }
  // A recomputation rests on at least its datapath: an empty list would read as no component.
  if (r.evidence?.length === 0) return `a ${r.status} lists an empty evidence list`;
  const sfu = _sfuOutsideEvidence(r);
  if (sfu !== null) return sfu;
  const why = r.status === "PASS"
    ? _pass(r)
    : r.status === "FAIL"
    ? _fail(r, options.chain)
    : _notVerified(r);
  return why ?? (r.steps === undefined ? null : _trace(r, options.kind));
}

/**
 * An SFU function the result depended on whose entry its evidence list lacks, at the level its
 * status gives (`sfuEvidenceLevel`): `--require-evidence` reads the list alone, so a list that
 * contradicts the SFU statuses would pass a policy the functions do not meet. A result without an
 * evidence list states nothing stronger than the weakest level, and is read so.
 */
function _sfuOutsideEvidence(r: CheckedResult): string | null {
  if (r.evidence === undefined || r.sfu === undefined) return null;
  const listed = new Set(r.evidence.map((e) => `${e.level}\u0000${e.component}`));
  for (const [i, want] of _sfuEvidence(r.sfu).entries()) {
    if (!listed.has(`${want.level}\u0000${want.component}`)) {
      return `SFU ${r.sfu[i]!.fn} is ${r.sfu[i]!.status}, but the evidence does not list ` +
        `'${want.component}' at ${want.level}`;
    }
  }
  return null;
}

function _pass(r: CheckedResult): string | null {
  return r.recomputed === r.claimed
    ? null
    : "a PASS whose recomputed fingerprint is not the claimed";
}

function _notVerified(r: CheckedResult): string | null {
  // Recomputation may have run and matched (a greedy token that cannot be checked), never differed.
  if (r.recomputed !== null && r.recomputed !== r.claimed) {
    return "a NOT_VERIFIED whose recomputed fingerprint differs (that is a FAIL)";
  }
  return null;
}

function _fail(r: CheckedResult, chain: boolean): string | null {
  const f = r.finding;
  if (f === undefined) return "a FAIL states no finding";
  if ((f === "committed-input") !== (r.obligation !== undefined)) {
    return `a '${f}' FAIL ${r.obligation === undefined ? "without" : "with"} a broken obligation`;
  }
  if (f === "fingerprint") {
    if (r.recomputed === null || r.recomputed === r.claimed) {
      return "a 'fingerprint' FAIL whose recomputed fingerprint is the claimed one";
    }
    const d = r.firstDifference;
    if (d !== null && d.claimed === d.recomputed) return "its first difference does not differ";
    return null;
  }
  if (r.firstDifference !== null) return `a '${f}' FAIL has an element difference`;
  if (f === "layer-chain" || f === "greedy-token") {
    if (r.recomputed !== r.claimed) return `a '${f}' FAIL whose fingerprints differ`;
    if (chain && (f === "layer-chain") !== (r.firstDivergence !== undefined)) {
      return `a '${f}' FAIL ${f === "layer-chain" ? "without" : "with"} a diverging layer`;
    }
    return null;
  }
  return r.recomputed === null ? null : `a '${f}' FAIL with a recomputed fingerprint`;
}

function _trace(r: CheckedResult, kind: string | undefined): string | null {
  const steps = r.steps!;
  if (r.status === "PASS") {
    const bad = steps.find((s) => !s.ok);
    if (bad !== undefined) return `a PASS whose step '${bad.step}' failed`;
    if (kind === undefined) return null;
    const extra = Object.hasOwn(PASS_STEPS, kind) ? PASS_STEPS[kind] : undefined;
    if (extra === undefined) return `a PASS of workload kind '${kind}', which cannot be verified`;
    const names = new Set(steps.map((s) => s.step));
    const gap = [...COMMON_STEPS, ...extra].find((s) => !names.has(s));
    return gap === undefined ? null : `a PASS without its '${gap}' step`;
  }
  const last = steps.at(-1);
  if (last === undefined || last.ok) return `a ${r.status} whose last step did not fail`;
  if (steps.slice(0, -1).some((s) => !s.ok)) return "a step failed before the last one";
  return null;
}
