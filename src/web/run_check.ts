/**
 * The checker page's one call into the verifier: parse the files a person dropped and run
 * `checkAttestation`, exactly as `bitaudit check` does with files (same parsers, same checks, same
 * limits: an envelope or a Sigstore bundle, an optional RFC 3161 token), with no file system,
 * engine or network involved; but for `check`'s `assets` lines: the page holds no release
 * manifest (it is itself one of the assets a manifest lists), so a verdict's assets are not
 * compared here (`checkView` says so).
 *
 * @module
 */
import {
  type AttestationFile,
  checkAttestation,
  type CheckReport,
  decodeBase64,
  parseStatement,
  parseTrustRoot,
  parseVerdictPredicate,
  readAttestation,
  trustedDrandChains,
  trustedTsaAnchors,
  type VerdictPredicate,
} from "../attest/mod.ts";
import { type ClaimLog, parseClaimLogInSteps } from "../claims/mod.ts";
import { BitauditError } from "../errors.ts";
import { validityHints } from "./validity_hints.ts";

/** Which input a refusal concerns. */
export type CheckInputName = "attestation" | "trust root" | "claim log" | "timestamp";

/** Files to check (JSON ones as UTF-8 decoded text). */
export interface CheckTexts {
  /** `attestation.dsse.json`, or the Sigstore bundle `attestation.sigstore.json`. */
  readonly attestation: string;
  /** `trust-root.json`. */
  readonly trustRoot: string;
  /** `claims.jsonl`, optional: confirms the attested records against the log. */
  readonly log?: string;
  /**
   * An RFC 3161 token or response (DER) over the attestation's signature, optional: keys are
   * judged at its time (as `check --timestamp`); it replaces the token a bundle carries.
   */
  readonly timestamp?: Uint8Array;
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
  /** The attestation's form: a bare DSSE envelope or a Sigstore bundle. */
  readonly format: AttestationFile["format"];
  /** Whether an RFC 3161 token was checked (given, or carried by the bundle). */
  readonly timestamped: boolean;
  /** Validity windows and flags behind a failed key check (`validityHints`). */
  readonly hints: readonly string[];
}

/** Outcome of {@link runCheck}. */
export type CheckOutcome = CheckRefusal | CheckDone;

/**
 * Parses the inputs and checks the attestation.
 *
 * @param texts attestation (envelope or Sigstore bundle), trust root, optional claim log and
 *   RFC 3161 token
 * @param options `now`, the verification time (default the clock); `progress`, told the claim
 *   log's lines parsed and their count while it is read in steps; `pause`, awaited between those
 *   steps (default a zero timeout, so that a page can draw)
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
  options: {
    now?: Date;
    progress?: (done: number, total: number) => void;
    pause?: () => Promise<void>;
  } = {},
): Promise<CheckOutcome> {
  const file = _read("attestation", () => readAttestation(texts.attestation));
  if ("kind" in file) return file;
  const trustRoot = _read("trust root", () => {
    const root = parseTrustRoot(texts.trustRoot);
    // Its pinned chains and authorities too, as the check reads them (BAD_TRUST_ROOT).
    trustedDrandChains(root.drand);
    trustedTsaAnchors(root.tsa);
    return root;
  });
  if ("kind" in trustRoot) return trustRoot;
  let log: ClaimLog | null = null;
  const logText = texts.log;
  if (logText !== undefined) {
    // In steps that hand the page back its thread: a log of hundreds of MB takes seconds.
    const pause = options.pause ?? (() => new Promise<void>((r) => setTimeout(r, 0)));
    const parsed = await _readInSteps(
      "claim log",
      () =>
        parseClaimLogInSteps(logText, {
          pause,
          ...(options.progress === undefined ? {} : { progress: options.progress }),
        }),
    );
    if ("kind" in parsed) return parsed;
    log = parsed;
  }
  const { envelope } = file;
  const token = texts.timestamp ?? file.timestamps[0];
  const report = await checkAttestation(envelope, {
    trustRoot,
    ...(log === null ? {} : { log }),
    ...(token === undefined ? {} : { timestamp: token }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  // Only a valid attestation's payload is shown as fact: its signatures cover these bytes.
  const predicate = report.valid
    ? parseVerdictPredicate(
      parseStatement(decodeBase64(envelope.payload, { alphabet: "any" })).predicate,
    )
    : null;
  return {
    kind: "checked",
    report,
    predicate,
    log,
    format: file.format,
    timestamped: token !== undefined,
    hints: await validityHints({ report, envelope, trustRoot }),
  };
}

/** {@link _read} for a parse that runs in steps. */
async function _readInSteps<T extends object>(
  input: CheckInputName,
  parse: () => Promise<T>,
): Promise<T | CheckRefusal> {
  let value: T;
  try {
    value = await parse();
  } catch (e) {
    return _read(input, () => {
      throw e;
    });
  }
  return value;
}

function _read<T extends object>(input: CheckInputName, parse: () => T): T | CheckRefusal {
  try {
    return parse();
  } catch (e) {
    if (!(e instanceof BitauditError)) throw e;
    return { kind: "refused", input, code: e.code, message: e.message };
  }
}
