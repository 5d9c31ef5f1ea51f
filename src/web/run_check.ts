/**
 * The checker page's one call into the verifier: parse the three texts a person dropped and run
 * `checkAttestation`, exactly as `bitaudit check` does with files (same parsers, same checks, same
 * limits), with no file system, engine or network involved.
 *
 * @module
 */
import {
  checkAttestation,
  type CheckReport,
  decodeBase64,
  parseEnvelope,
  parseStatement,
  parseTrustRoot,
  parseVerdictPredicate,
  type VerdictPredicate,
} from "../attest/mod.ts";
import { type ClaimLog, parseClaimLog } from "../claims/mod.ts";
import { BitauditError } from "../errors.ts";

/** Which input a refusal concerns. */
export type CheckInputName = "attestation" | "trust root" | "claim log";

/** Texts to check (UTF-8 decoded file contents). */
export interface CheckTexts {
  /** `attestation.dsse.json`. */
  readonly attestation: string;
  /** `trust-root.json`. */
  readonly trustRoot: string;
  /** `claims.jsonl`, optional: confirms the attested records against the log. */
  readonly log?: string;
}

/** An input that could not be read at all (the CLI exits 2 for these). */
export interface CheckRefusal {
  /** Discriminant. */
  readonly kind: "refused";
  /** The input concerned. */
  readonly input: CheckInputName;
  /** Error code, e.g. `BAD_ENVELOPE`. */
  readonly code: string;
  /** One-line message, "Cannot ...". */
  readonly message: string;
}

/** A completed check. */
export interface CheckDone {
  /** Discriminant. */
  readonly kind: "checked";
  /** The report `bitaudit check --json` prints. */
  readonly report: CheckReport;
  /** The signed verdict, read from the verified payload; only for a valid attestation. */
  readonly predicate: VerdictPredicate | null;
  /** The claim log, when one was given. */
  readonly log: ClaimLog | null;
}

/** Outcome of {@link runCheck}. */
export type CheckOutcome = CheckRefusal | CheckDone;

/**
 * Parses the inputs and checks the attestation.
 *
 * @param texts attestation, trust root and optional claim log
 * @param options `now`, the verification time (default the clock)
 * @returns a refusal naming the unreadable input, or the check report with the verified predicate
 * @example
 * ```ts
 * import { runCheck } from "./run_check.ts";
 * const r = await runCheck({ attestation: "{}", trustRoot: "{}" });
 * if (r.kind !== "refused" || r.input !== "attestation") throw new Error();
 * ```
 */
export async function runCheck(
  texts: CheckTexts,
  options: { now?: Date } = {},
): Promise<CheckOutcome> {
  const envelope = _read("attestation", () => parseEnvelope(texts.attestation));
  if ("kind" in envelope) return envelope;
  const trustRoot = _read("trust root", () => parseTrustRoot(texts.trustRoot));
  if ("kind" in trustRoot) return trustRoot;
  let log: ClaimLog | null = null;
  if (texts.log !== undefined) {
    const parsed = _read("claim log", () => parseClaimLog(texts.log!));
    if ("kind" in parsed) return parsed;
    log = parsed;
  }
  const report = await checkAttestation(envelope, {
    trustRoot,
    ...(log === null ? {} : { log }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  // Only a valid attestation's payload is shown as fact: its signatures cover these bytes.
  const predicate = report.valid
    ? parseVerdictPredicate(
      parseStatement(decodeBase64(envelope.payload, { alphabet: "any" })).predicate,
    )
    : null;
  return { kind: "checked", report, predicate, log };
}

function _read<T extends object>(input: CheckInputName, parse: () => T): T | CheckRefusal {
  try {
    return parse();
  } catch (e) {
    if (!(e instanceof BitauditError)) throw e;
    return { kind: "refused", input, code: e.code, message: e.message };
  }
}
