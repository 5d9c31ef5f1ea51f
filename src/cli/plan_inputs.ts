/**
 * Command-line inputs of the audit commands: the claim log, the public randomness and round, the
 * sample size, the audit id and the committed root, turned into an audit plan; plan files read
 * back; integer and time flags.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { MAX_CLOCK_SKEW_MS, parseRfc3339, type SigningKey } from "../attest/mod.ts";
import type { ClaimLog } from "../claims/mod.ts";
import { InputError, UsageError } from "../errors.ts";
import {
  AUDIT_ID_PATTERN,
  AUDIT_ID_RULE,
  type AuditPlan,
  auditPlanDigest,
  checkPlanLog,
  MAX_PRODUCT_BUDGET,
  parseAuditPlan,
  planAudit,
} from "../verify/mod.ts";
import { loadClaimLog, loadSigningKeys } from "./load_inputs.ts";
import { loadTrustInputs, type TrustInputFlags, type TrustInputs } from "./trust_inputs.ts";
import { readTextFile } from "./read_json_file.ts";
import { keysInUse } from "./refuse_prover_key.ts";
import { quoteForTerminal } from "../escape_text.ts";
import { parseIntOption } from "./parse_int_option.ts";

/** The flags that fix a plan: the log, the trust inputs (as `audit` takes them), k and ids. */
export interface PlanFlags extends TrustInputFlags {
  readonly log: string;
  readonly k: string;
  readonly root?: string | undefined;
  /**
   * Inspector private keys: they sign the plan (the keys that will sign the verdict), and one of
   * them must have signed an announcement.
   */
  readonly key: readonly string[];
  /** `--max-record-products`: the budget a record the plan carries (default: none, 2^48). */
  readonly maxRecordProducts?: string | undefined;
}

/**
 * Reads the inspector keys and the log, verifies the trust inputs exactly as `audit` does, and
 * plans the audit the flags describe; the plan carries the trust evidence so that the merge binds
 * the same. The plan is returned unsigned, with the keys that are to sign it.
 *
 * @param o the flags as typed
 * @returns the log, the plan, the verified trust inputs and the inspector keys
 * @throws {UsageError} `USAGE_NUMBER`, `USAGE_RANDOMNESS`, `USAGE_KEYS`, `USAGE_TRUST`;
 *   {InputError} key and log errors, trust input errors (see `loadTrustInputs`), `AUDIT_*`
 * @example
 * ```ts ignore
 * const { plan, keys } = await planFromFlags({
 *   log: "claims.jsonl", randomness: "ab", round: "7", k: "10", key: ["inspector.key"],
 * });
 * ```
 */
export async function planFromFlags(
  o: PlanFlags,
): Promise<{ log: ClaimLog; plan: AuditPlan; trust: TrustInputs; keys: SigningKey[] }> {
  const k = intFlag(o.k, { flag: "--k", min: 1 });
  const maxRecordProducts = maxRecordProductsFlag(o.maxRecordProducts);
  const root = rootFlag(o.root);
  auditIdFlag(o.auditId);
  if (o.randomness !== undefined && !/^(?:[0-9a-fA-F]{2}){1,512}$/.test(o.randomness)) {
    throw new UsageError(
      "USAGE_RANDOMNESS",
      "Cannot use --randomness: expected 2..1024 hex digits",
    );
  }
  if (o.round !== undefined) intFlag(o.round, { flag: "--round", min: 0 });
  const keys = await loadSigningKeys(o.key);
  const log = await loadClaimLog(o.log);
  const publicKeys = keys.map((key) => key.publicKey);
  const trust = await loadTrustInputs(o, {
    log,
    keys: publicKeys,
    uses: keysInUse(publicKeys, { option: "--key", paths: o.key }),
  });
  const round = intFlag(trust.round, { flag: "--round", min: 0 });
  const plan = planAudit(log, {
    auditId: o.auditId ?? trust.announcement?.auditId ?? `audit-${log.root.slice(0, 16)}-r${round}`,
    randomness: trust.randomness.toLowerCase(),
    round,
    k,
    expectedRoot: root,
    evidence: trust.evidence,
    maxRecordProducts,
  });
  return { log, plan, trust, keys };
}

/**
 * Checks a `--root` flag: a log root is 64 hex digits (the SHA-256 of the log's Merkle tree).
 * Checked before the log is read, so a malformed value is a usage error, not a root mismatch.
 *
 * @param text the flag's value, or undefined when not given
 * @returns the root in lowercase, or undefined
 * @throws {UsageError} `USAGE_ROOT`
 * @example
 * ```ts
 * import { rootFlag } from "./plan_inputs.ts";
 * if (rootFlag("AB".repeat(32)) !== "ab".repeat(32)) throw new Error();
 * ```
 */
export function rootFlag(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9a-fA-F]{64}$/.test(text)) {
    throw new UsageError(
      "USAGE_ROOT",
      `Cannot use --root ${quoteForTerminal(text.slice(0, 80))}: expected 64 hex digits`,
    );
  }
  return text.toLowerCase();
}

/** The `--max-record-products` option of `audit` and `audit plan` (commander's arguments). */
export const MAX_RECORD_PRODUCTS_OPTION = [
  "--max-record-products <n>",
  "most products one record's recomputation may take (a decimal integer; default " +
  "281474976710656, 2^48): a record predicted over it is NOT_VERIFIED before anything is " +
  "computed; the plan and the verdict record it",
] as const;

/**
 * Checks a `--max-record-products` flag before anything is read: a decimal integer in
 * 1..`MAX_PRODUCT_BUDGET` (2^53 - 1, where product counts stop being whole numbers).
 *
 * @param text the flag's value, or undefined when not given
 * @returns the budget, or undefined (the default)
 * @throws {UsageError} `USAGE_NUMBER`
 * @example
 * ```ts
 * import { maxRecordProductsFlag } from "./plan_inputs.ts";
 * if (maxRecordProductsFlag("1000000") !== 1e6) throw new Error();
 * ```
 */
export function maxRecordProductsFlag(text: string | undefined): number | undefined {
  return text === undefined
    ? undefined
    : parseIntOption(text, { flag: "--max-record-products", min: 1, max: MAX_PRODUCT_BUDGET });
}

/**
 * Checks an `--audit-id` flag: printable ASCII from the set a claim log id uses
 * (`AUDIT_ID_PATTERN`), so that no lookalike of the announced form (`announced‑` with U+2011)
 * and no control character reaches the signed verdict. Checked before anything is read.
 *
 * @param text the flag's value, or undefined when not given
 * @returns the id, or undefined
 * @throws {UsageError} `USAGE_AUDIT_ID`
 * @example
 * ```ts
 * import { auditIdFlag } from "./plan_inputs.ts";
 * if (auditIdFlag("audit-2026-11-05") !== "audit-2026-11-05") throw new Error();
 * ```
 */
export function auditIdFlag(text: string | undefined): string | undefined {
  if (text === undefined || AUDIT_ID_PATTERN.test(text)) return text;
  // Every character outside ASCII shown by its code point: a lookalike is what it is refused for.
  const shown = quoteForTerminal(text.slice(0, 80))
    .replace(/[^\x20-\x7e]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
  throw new UsageError(
    "USAGE_AUDIT_ID",
    `Cannot use --audit-id ${shown}: expected ${AUDIT_ID_RULE}`,
  );
}

/**
 * Parses a non-negative integer flag.
 *
 * @param text the flag's value
 * @param options `flag` name for messages, smallest allowed value `min`
 * @returns the integer
 * @throws {InputError} `USAGE_NUMBER`
 * @example
 * ```ts
 * import { intFlag } from "./plan_inputs.ts";
 * if (intFlag("12", { flag: "--k", min: 1 }) !== 12) throw new Error();
 * ```
 */
export function intFlag(
  text: string,
  options: { flag: string; min: number; max?: number },
): number {
  const v = Number(text);
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(v) || v < options.min || v > max) {
    throw new UsageError(
      "USAGE_NUMBER",
      `Cannot use ${options.flag} '${text}': expected an integer >= ${options.min}${
        options.max === undefined ? "" : ` and <= ${options.max}`
      }`,
    );
  }
  return v;
}

/**
 * Checks a `--time` flag (RFC 3339 UTC, to the second, as the verdict records it), and that it is
 * not in the future: `check` refuses a statement dated after its verification time (beyond the
 * clock skew it allows), so such a verdict would be signed for nobody to accept.
 *
 * @param text the flag's value, or undefined for "now"
 * @param now the current time (tests)
 * @param refusedBy who refuses what the time would be put on (said when it is in the future)
 * @returns the same text, or undefined
 * @throws {InputError} `USAGE_TIME`
 * @example
 * ```ts
 * import { timeFlag } from "./plan_inputs.ts";
 * if (timeFlag("2026-05-01T00:00:00Z") !== "2026-05-01T00:00:00Z") throw new Error();
 * ```
 */
export function timeFlag(
  text: string | undefined,
  now: Date = new Date(),
  refusedBy = "check refuses a verdict dated after its verification",
): string | undefined {
  if (text === undefined) return undefined;
  let ok = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(text);
  let at = 0;
  try {
    at = parseRfc3339(text);
  } catch {
    ok = false;
  }
  if (ok && at > now.getTime() + MAX_CLOCK_SKEW_MS) {
    throw new UsageError(
      "USAGE_TIME",
      `Cannot use --time ${text}: it is in the future (now ${
        now.toISOString().replace(/\.\d+Z$/, "Z")
      }), and ${refusedBy}`,
    );
  }
  if (!ok) {
    throw new UsageError(
      "USAGE_TIME",
      "Cannot use --time: expected an RFC 3339 UTC time to the second (e.g. 2026-05-01T12:00:00Z)",
    );
  }
  return text;
}

/** Largest plan file accepted (bytes). */
export const MAX_PLAN_BYTES = 64 * 1024 * 1024;

/**
 * Reads a plan file strictly (see `parseAuditPlan`).
 *
 * @param path plan.json
 * @returns the plan and the SHA-256 of its bytes
 * @throws {InputError} `INPUT_*`, `PLAN_INVALID`
 * @example
 * ```ts ignore
 * const { plan, planDigest } = await loadPlanFile("plan.json");
 * ```
 */
export async function loadPlanFile(
  path: string,
): Promise<{ plan: AuditPlan; planDigest: string }> {
  const plan = parseAuditPlan(await readTextFile(path, { maxBytes: MAX_PLAN_BYTES }), path);
  return { plan, planDigest: auditPlanDigest(plan) };
}

/**
 * Reads the claim log a plan was made from and checks it is that log: `--log` when given, else
 * `claims.jsonl` beside the plan (a missing one is named as that default, with the flag to give).
 *
 * @param plan the plan, and its file's path
 * @param log the `--log` flag, if given
 * @returns the log and its path
 * @throws {InputError} `INPUT_MISSING` (naming `--log` for the default path), the codes of
 *   `loadClaimLog`, `PLAN_LOG_MISMATCH`
 * @example
 * ```ts ignore
 * const { log, path } = await loadPlanLog({ plan, path: "plan.json" }, opts.log);
 * ```
 */
export async function loadPlanLog(
  plan: { readonly plan: AuditPlan; readonly path: string },
  log: string | undefined,
): Promise<{ log: ClaimLog; path: string }> {
  const path = log ?? join(dirname(plan.path), "claims.jsonl");
  let parsed: ClaimLog;
  try {
    parsed = await loadClaimLog(path);
  } catch (e) {
    if (log !== undefined || !(e instanceof InputError && e.code === "INPUT_MISSING")) throw e;
    throw new InputError(
      "INPUT_MISSING",
      `Cannot read the claim log beside the plan, '${path}': no such file (give it with --log)`,
    );
  }
  checkPlanLog(plan.plan, parsed);
  return { log: parsed, path };
}
