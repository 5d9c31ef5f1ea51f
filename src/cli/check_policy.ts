/**
 * What `check` requires of a valid attestation beyond its validity, as signing tools let a
 * verifier say it (`cosign verify --certificate-identity`, `gh attestation verify
 * --predicate-type`): the verdict (`--require-verdict PASSED`), the audited log root
 * (`--require-root <hex>`), and the prover key that signed the attested checkpoint
 * (`--require-prover <keyid>`, as the verdict's checkpoint binding records it in `proverKeyId`,
 * which `check` has matched against the signed note), and the evidence every PASS rests on
 * (`--require-evidence <level>`: each component a PASS result lists is known at least that well),
 * and an announcement dated before the round by a verified RFC 3161 timestamp
 * (`--require-announcement`: a stated time is the inspector's word, who can write it after the
 * round as well, choosing k or the round once the randomness is known), and a sample of at least
 * so many records (`--require-sample <k>`: the samples an audit id and round give are prefixes of
 * one another, so an inspector who announced several k gains nothing over the smallest the
 * verifier accepts).
 * A valid attestation of another verdict, log, prover or evidence is still valid; the policy is
 * what makes `check` exit 1 for it.
 *
 * @module
 */
import type { TrustLabels, VerdictPredicate } from "../attest/mod.ts";
import { EVIDENCE_LEVELS, type EvidenceLevel, meetsEvidence } from "../verify/mod.ts";
import { UsageError } from "../errors.ts";
import { quoteForTerminal } from "../escape_text.ts";
import { parseIntOption } from "./parse_int_option.ts";

/** The verdicts `--require-verdict` accepts. */
const VERDICTS = ["PASSED", "FAILED", "INCONCLUSIVE"] as const;

/** What a valid attestation must also state; each field present is one requirement. */
export interface CheckPolicy {
  /** `--require-verdict`. */
  readonly verdict?: (typeof VERDICTS)[number];
  /** `--require-root`: the audited log's Merkle root, lowercase hex. */
  readonly root?: string;
  /** `--require-prover`: key id (SHA-256 of the SPKI, lowercase hex) of the checkpoint's signer. */
  readonly prover?: string;
  /** `--require-evidence`: the weakest evidence level a PASS may rest on. */
  readonly evidence?: EvidenceLevel;
  /**
   * `--require-announcement`: the announcement's order before the round vouched for by a
   * verified RFC 3161 timestamp (the trust label `timestamped`).
   */
  readonly announcement?: "timestamped";
  /** `--require-sample`: the fewest sampled records (the verdict's `k`) accepted. */
  readonly sample?: number;
}

/** One requirement and whether the attestation meets it. */
export interface PolicyRequirement {
  /** The flag, e.g. `--require-verdict`. */
  readonly flag: string;
  /** The value required. */
  readonly required: string;
  /** What the attestation states (null: nothing, or the attestation is not valid). */
  readonly found: string | null;
  /** Whether `found` meets `required` (is it; for `--require-sample`, at least as many). */
  readonly met: boolean;
}

/** Every requirement's outcome; `met` only when all are met. */
export interface PolicyOutcome {
  /** Whether every requirement is met. */
  readonly met: boolean;
  /** The requirements, in flag order (verdict, root, prover, evidence, announcement, sample). */
  readonly requirements: readonly PolicyRequirement[];
}

/**
 * Reads the policy flags.
 *
 * @param flags the flag values as given (absent: not required)
 * @returns the policy, or null when no flag was given
 * @throws {UsageError} `USAGE_POLICY` for a verdict that does not exist or a malformed hex value;
 *   `USAGE_NUMBER` for a sample size that is not an integer from 1
 * @example
 * ```ts
 * import { parseCheckPolicy } from "./check_policy.ts";
 * const p = parseCheckPolicy({ requireVerdict: "PASSED", requireRoot: "AB".repeat(32) });
 * if (p?.verdict !== "PASSED" || p.root !== "ab".repeat(32)) throw new Error();
 * if (parseCheckPolicy({}) !== null) throw new Error();
 * ```
 */
export function parseCheckPolicy(
  flags: {
    requireVerdict?: string;
    requireRoot?: string;
    requireProver?: string;
    requireEvidence?: string;
    requireAnnouncement?: boolean;
    requireSample?: string;
  },
): CheckPolicy | null {
  const policy: { -readonly [K in keyof CheckPolicy]: CheckPolicy[K] } = {};
  if (flags.requireVerdict !== undefined) {
    const v = VERDICTS.find((x) => x === flags.requireVerdict);
    if (v === undefined) {
      throw new UsageError(
        "USAGE_POLICY",
        `Cannot use --require-verdict ${quoteForTerminal(flags.requireVerdict)}: expected ${
          VERDICTS.join(", ")
        }`,
      );
    }
    policy.verdict = v;
  }
  if (flags.requireRoot !== undefined) policy.root = _hex32("--require-root", flags.requireRoot);
  if (flags.requireEvidence !== undefined) {
    policy.evidence = parseEvidenceLevel("--require-evidence", flags.requireEvidence);
  }
  if (flags.requireProver !== undefined) {
    policy.prover = _hex32("--require-prover", flags.requireProver);
  }
  if (flags.requireAnnouncement === true) policy.announcement = "timestamped";
  if (flags.requireSample !== undefined) {
    policy.sample = parseIntOption(flags.requireSample, { flag: "--require-sample", min: 1 });
  }
  return Object.keys(policy).length === 0 ? null : Object.freeze(policy);
}

/**
 * Checks the verified predicate of an attestation against a policy.
 *
 * @param policy the requirements
 * @param predicate the verified predicate, or null when the attestation is not valid (then no
 *   requirement is met: nothing stated by an invalid attestation counts)
 * @param options `trust`: the report's trust labels (`--require-announcement` reads its
 *   `announcement`, established by the checks rather than read from the predicate)
 * @returns each requirement's outcome
 * @example
 * ```ts
 * import { checkPolicy } from "./check_policy.ts";
 * const r = checkPolicy({ verdict: "PASSED" }, null);
 * if (r.met || r.requirements[0]?.found !== null) throw new Error();
 * ```
 */
export function checkPolicy(
  policy: CheckPolicy,
  predicate: VerdictPredicate | null,
  options: { trust?: TrustLabels } = {},
): PolicyOutcome {
  const requirements: PolicyRequirement[] = [];
  const add = (flag: string, required: string | undefined, found: string | undefined) => {
    if (required === undefined) return;
    const f = predicate === null ? null : found ?? null;
    requirements.push({ flag, required, found: f, met: f === required });
  };
  add("--require-verdict", policy.verdict, predicate?.verdict);
  add("--require-root", policy.root, predicate?.audit.logRoot);
  add("--require-prover", policy.prover, predicate?.audit.checkpoint?.proverKeyId);
  if (policy.evidence !== undefined) {
    const weakest = predicate === null ? null : _weakestPassEvidence(predicate);
    requirements.push({
      flag: "--require-evidence",
      required: policy.evidence,
      found: weakest,
      met: weakest !== null && (weakest === "no PASS" || meetsEvidence(weakest, policy.evidence)),
    });
  }
  add(
    "--require-announcement",
    policy.announcement,
    predicate === null ? undefined : options.trust?.announcement,
  );
  if (policy.sample !== undefined) {
    const k = predicate?.audit.k ?? null;
    requirements.push({
      flag: "--require-sample",
      required: String(policy.sample),
      found: k === null ? null : String(k),
      met: k !== null && k >= policy.sample,
    });
  }
  return { met: requirements.every((r) => r.met), requirements };
}

/**
 * One line per requirement, saying what was required and what the attestation states.
 *
 * @param outcome the policy's outcome
 * @param valid whether the attestation is valid (an invalid one states nothing that counts)
 * @returns the lines, `ok` or `FAIL` first as `check` prints its checks
 * @example
 * ```ts
 * import { policyLines } from "./check_policy.ts";
 * const lines = policyLines({ met: false, requirements: [
 *   { flag: "--require-verdict", required: "PASSED", found: "FAILED", met: false },
 * ] }, true);
 * if (lines[0] !== "FAIL policy --require-verdict PASSED: the attested verdict is FAILED") {
 *   throw new Error(lines[0]);
 * }
 * ```
 */
export function policyLines(outcome: PolicyOutcome, valid: boolean): string[] {
  return outcome.requirements.map((r) => {
    const what = _WHAT[r.flag] ?? r.flag;
    const found = !valid
      ? "not met: the attestation is not valid, so nothing it states counts"
      : r.flag === "--require-announcement"
      ? _ANNOUNCED[r.found ?? "none"] ?? `the announcement is ${r.found}`
      : r.found === null
      ? `the attestation states no ${what}${
        r.flag === "--require-prover" ? " (the audit had no signed prover checkpoint)" : ""
      }`
      : `the attested ${what} is ${r.found}`;
    return `${r.met ? "ok  " : "FAIL"} policy ${requirementFlag(r)}: ${found}`;
  });
}

/**
 * Reads an evidence level flag.
 *
 * @param flag the flag, for the message
 * @param value its value
 * @returns the level
 * @throws {UsageError} `USAGE_POLICY` for anything else
 * @example
 * ```ts
 * import { parseEvidenceLevel } from "./check_policy.ts";
 * if (parseEvidenceLevel("--x", "measured-on-gpu") !== "measured-on-gpu") throw new Error();
 * ```
 */
export function parseEvidenceLevel(flag: string, value: string): EvidenceLevel {
  const level = EVIDENCE_LEVELS.find((l) => l === value);
  if (level === undefined) {
    throw new UsageError(
      "USAGE_POLICY",
      `Cannot use ${flag} ${quoteForTerminal(value)}: expected ${EVIDENCE_LEVELS.join(", ")}`,
    );
  }
  return level;
}

/**
 * The weakest level any PASS result's evidence lists, with the component and record; `no PASS`
 * when no result passed; a PASS without evidence (a verifier that did not list it) counts as
 * derived from source.
 */
function _weakestPassEvidence(p: VerdictPredicate): EvidenceLevel | "no PASS" {
  let weakest: EvidenceLevel | null = null;
  for (const r of p.results) {
    if (r.status !== "PASS") continue;
    // No list (or an empty one) states nothing stronger than the weakest level.
    const levels = r.evidence === undefined || r.evidence.length === 0
      ? ["derived-from-source" as const]
      : r.evidence.map((e) => e.level);
    for (const l of levels) if (weakest === null || !meetsEvidence(l, weakest)) weakest = l;
  }
  return weakest ?? "no PASS";
}

/**
 * A requirement as given on the command line: the flag and its value (`--require-announcement`
 * takes none).
 *
 * @param r the requirement
 * @returns e.g. `--require-verdict PASSED`
 * @example
 * ```ts
 * import { requirementFlag } from "./check_policy.ts";
 * const r = { flag: "--require-announcement", required: "timestamped", found: null, met: false };
 * if (requirementFlag(r) !== "--require-announcement") throw new Error();
 * ```
 */
export function requirementFlag(r: PolicyRequirement): string {
  return r.flag === "--require-announcement" ? r.flag : `${r.flag} ${r.required}`;
}

/** What `--require-announcement` found, per trust label. */
const _ANNOUNCED: Readonly<Record<string, string>> = {
  timestamped: "a verified RFC 3161 timestamp dates the announcement before the round",
  "pre-committed":
    "the announcement has no timestamp: its time is the inspector's stated time only, and the order before the round is the inspector's word",
  none: "the audit was not announced",
};

const _WHAT: Readonly<Record<string, string>> = {
  "--require-verdict": "verdict",
  "--require-root": "log root",
  "--require-prover": "prover key (signer of the checkpoint)",
  "--require-evidence": "weakest evidence a PASS rests on",
  "--require-sample": "sample size (records)",
};

function _hex32(flag: string, value: string): string {
  if (!/^[0-9a-fA-F]{64}$/.test(value)) {
    throw new UsageError(
      "USAGE_POLICY",
      `Cannot use ${flag} ${quoteForTerminal(value)}: expected 64 hex digits`,
    );
  }
  return value.toLowerCase();
}
