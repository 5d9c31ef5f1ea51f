/**
 * When a check fails on a key's validity window, the dates behind it and the flag that sets them
 * (shared by `bitaudit check` and the checker page). A trust root built with
 * `key trust-root --prover` dates the prover keys from `--valid-from` unless
 * `--prover-valid-from` says otherwise, so a checkpoint the prover signed earlier fails; that is
 * a trust-root setting, not tampering, and the hint says so with the dates.
 *
 * @module
 */
import {
  type CheckReport,
  decodeBase64,
  type DsseEnvelope,
  parseEnvelope,
  parseRfc3339,
  parseStatement,
  type TrustRoot,
  type TrustRootKey,
  UNSIGNED_READ_BYTES,
  verifyCheckpoint,
  verifyEnvelope,
} from "../attest/mod.ts";

/** What {@link validityHints} looks at. */
export interface ValidityInputs {
  /**
   * The check's report: hints are given only for a failed `signatures`, `checkpoint`,
   * `announcement` or `workers` check.
   */
  readonly report: CheckReport;
  /** The checked envelope (its signature key ids and the statement's times). */
  readonly envelope: DsseEnvelope;
  /** The trust root the check used. */
  readonly trustRoot: TrustRoot;
  /** The verification time (default the clock): a key retired since then is named as such. */
  readonly now?: Date;
}

/**
 * Names, for each key a failed check concerns, its validity window in the trust root, the time it
 * signed at, and the `bitaudit key trust-root` flag that sets the window.
 *
 * @param inputs the report, the envelope, the trust root and the verification time
 * @returns one sentence per key concerned (none when no such check failed)
 * @example
 * ```ts
 * import { validityHints } from "./validity_hints.ts";
 * const report = { valid: true, verdict: null, auditId: null, signatures: [], checks: [] };
 * const envelope = { payloadType: "t", payload: "", signatures: [] };
 * const hints = await validityHints({ report, envelope, trustRoot: { mediaType: "m", keys: [] } });
 * if (hints.length !== 0) throw new Error();
 * ```
 */
export async function validityHints(inputs: ValidityInputs): Promise<string[]> {
  const failed = new Set(inputs.report.checks.filter((c) => !c.ok).map((c) => c.check));
  if (!["signatures", "checkpoint", "announcement", "workers"].some((c) => failed.has(c))) {
    return [];
  }
  // Read as `checkAttestation` reads it: a payload above the unsigned limit only once a trust
  // root key has signed it.
  const signed = inputs.report.signatures.some((x) => x.verifiedBy !== null);
  const predicate = _predicate(inputs.envelope, signed);
  const hints: string[] = [];
  if (failed.has("signatures")) {
    // Only keys whose signature verified and was refused for its window: a signature no key
    // verified is a forgery or a tampered payload, and its keyid hint is the attacker's word.
    const ids = new Set(inputs.report.signatures.flatMap((s) => s.refusedKey ?? []));
    const stated = _time(predicate?.timeVerified);
    const token = _token(inputs.report);
    for (const key of inputs.trustRoot.keys) {
      if (key.role !== "inspector" || !ids.has(key.keyid)) continue;
      // The key that made the entry the token covers was judged at the token's time alone.
      const dated = token !== undefined &&
          inputs.report.signatures[token.signature]?.refusedKey === key.keyid
        ? token.at
        : undefined;
      hints.push(
        _inspectorHint(key, { stated, dated, now: (inputs.now ?? new Date()).getTime() }),
      );
    }
  }
  if (failed.has("checkpoint")) {
    const cp = _object(_object(predicate?.audit)?.checkpoint);
    const id = typeof cp?.proverKeyId === "string" ? cp.proverKeyId : undefined;
    if (id !== undefined) {
      hints.push(
        await _proverHint(inputs.trustRoot, id, { signedAt: _time(cp?.signedAt), note: cp?.note }),
      );
    }
  }
  if (failed.has("workers")) hints.push(..._workerHints(predicate, inputs.trustRoot));
  const refusal = _keyRefusal(inputs.report);
  if (refusal !== undefined) {
    // Only when the announcement failed on its keys' validity, judged at the instant the check
    // used (its token's time, or its stated one): the keys whose signature over it verifies (a
    // key id field is the signer's own word), whose window leaves that instant out, or, for an
    // announcement without a token, that were valid then and have been ended or revoked since.
    const announcement = _object(_object(predicate?.audit)?.announcement);
    const signers = await _signers(announcement, inputs.trustRoot);
    const now = (inputs.now ?? new Date()).getTime();
    for (const key of inputs.trustRoot.keys) {
      if (key.role !== "inspector" || !signers.has(key.keyid)) continue;
      if (!_within(key, refusal.at)) hints.push(_announcerHint(key, refusal.at));
      else if (!refusal.stamped && !_within(key, now)) hints.push(_retiredHint(key, refusal.at));
    }
  }
  return hints;
}

/**
 * For a failed `workers` check: each worker key of the verdict that the trust root lists as an
 * inspector's, with a window (or revocation) that leaves the verdict's time out. The workers
 * check ran on a verified payload only, so the predicate read here is the signed one.
 */
function _workerHints(
  predicate: Record<string, unknown> | undefined,
  root: TrustRoot,
): string[] {
  const stated = _time(predicate?.timeVerified);
  const listed = _object(predicate?.workers)?.keys;
  if (stated === undefined || !Array.isArray(listed)) return [];
  const ids = new Set(listed.map((k) => _object(k)?.keyid));
  return root.keys
    .filter((k) => k.role === "inspector" && ids.has(k.keyid) && !_within(k, stated))
    .map((key) => {
      const early = stated < key.validFor.start
        ? " That is before the key's window: if the key was a worker of the inspector's then, build the trust root with an earlier --valid-from."
        : "";
      return `Your trust root lets inspector key ${
        _short(key.keyid)
      }, which computed results of this audit as a worker, sign ${_window(key)} (${
        _windowFlag(key)
      }). The verdict says it was signed at ${_iso(stated)}.${early}`;
    });
}

function _announcerHint(key: TrustRootKey, at: number): string {
  return `Your trust root lets inspector key ${_short(key.keyid)}, which signed the ` +
    `announcement, sign ${_window(key)}, and the announcement says it was signed at ${
      _iso(at)
    }: if the key was the inspector's then, its window should start by then (\`bitaudit key trust-root --valid-from ${
      _iso(at)
    }\` or earlier).`;
}

/** The announcing key was valid when it signed, and has been ended or revoked since. */
function _retiredHint(key: TrustRootKey, at: number): string {
  return `Inspector key ${_short(key.keyid)} signed the announcement at ${
    _iso(at)
  }, inside its window (${
    _window(key)
  }), but it is not valid at the verification time, and the announcement carries no RFC 3161 token to date its signature: an announcement stays checkable after its key is retired only with a token over its signature, given to \`audit --announcement-timestamp\`.`;
}

/**
 * The instant a failed announcement check judged its keys at, when it failed on their validity
 * (`checkAnnouncement`'s words), and whether a token gave that instant.
 */
function _keyRefusal(report: CheckReport): { at: number; stamped: boolean } | undefined {
  const detail = report.checks.find((c) => c.check === "announcement" && !c.ok)?.detail ?? "";
  // The two whole sentences `checkAnnouncement` writes, anchored: an announcement's own text
  // quoted inside another failure (a malformed time) must not pass for one.
  const stated =
    /^no inspector key valid at (\S+) and at the verification time signed the announcement$/
      .exec(detail);
  const token =
    /^the announcement's RFC 3161 timestamp covers signature \d+, which no inspector key valid at (\S+) made$/
      .exec(detail);
  const at = _time((stated ?? token)?.[1]);
  return at === undefined ? undefined : { at, stamped: token !== null };
}

/** Signature entries of an announcement a hint looks at. */
const _HINT_SIGNATURES = 8;
/** Keys tried for an entry whose key id names none of the trust root's inspector keys. */
const _HINT_KEYS = 16;

/**
 * The inspector keys of the trust root whose signature over the attested announcement verifies:
 * each of its first entries against the key its key id names, or, when the id names none (a
 * key id is only a hint), against the first inspector keys in turn; a forger's copy of a listed
 * id names nobody.
 */
async function _signers(
  announcement: Record<string, unknown> | undefined,
  root: TrustRoot,
): Promise<Set<string>> {
  const out = new Set<string>();
  try {
    const env = parseEnvelope(JSON.stringify(announcement?.envelope));
    const inspectors = root.keys.filter((k) => k.role === "inspector");
    for (const s of env.signatures.slice(0, _HINT_SIGNATURES)) {
      const named = inspectors.find((k) => k.keyid === s.keyid);
      const keys = named !== undefined ? [named] : inspectors.slice(0, _HINT_KEYS);
      const one = { ...env, signatures: [s] };
      const v = await verifyEnvelope(one, { trustedKeys: keys.map((k) => k.publicKey) });
      const by = v.signatures[0]?.verifiedBy;
      if (typeof by === "string") out.add(by);
    }
  } catch {
    // A malformed announcement names no key.
  }
  return out;
}

/** Whether a key's window (and no revocation) holds a time. */
function _within(key: TrustRootKey, at: number): boolean {
  return at >= key.validFor.start && (key.validFor.end === undefined || at <= key.validFor.end) &&
    (key.revoked === undefined || at < key.revoked.time);
}

/**
 * The signature entry a valid RFC 3161 token dated, and its time, when the check was given one
 * (`checkAttestation`'s `timestamp` check, whose words are anchored here): the key that made that
 * entry was judged at the token's time, not at the statement's or the verification time.
 */
function _token(report: CheckReport): { signature: number; at: number } | undefined {
  const detail = report.checks.find((c) => c.check === "timestamp" && c.ok)?.detail ?? "";
  const m = /^RFC 3161 token: signature (\d+) existed at (\S+)$/.exec(detail);
  const at = _time(m?.[2]);
  return m === null || at === undefined ? undefined : { signature: Number(m[1]), at };
}

/**
 * The hint for an inspector key refused by the signatures check: its window, the statement's
 * time (its signer's own word), and either the token's time the key was judged at (`dated`) or,
 * without a token, what the statement's time says of the window.
 */
function _inspectorHint(
  key: TrustRootKey,
  o: { stated: number | undefined; dated: number | undefined; now: number },
): string {
  const { stated, dated } = o;
  const when = stated === undefined ? "" : ` The statement says it was signed at ${_iso(stated)}.`;
  let why = "";
  if (dated !== undefined) {
    const outside = _within(key, dated) ? "" : ", outside the key's window";
    const early = dated < key.validFor.start
      ? ": if the key was the inspector's then, build the trust root with an earlier --valid-from"
      : "";
    why = ` The RFC 3161 token given to \`check --timestamp\` dates the signature at ${
      _iso(dated)
    }${outside}, and the key was judged at that time${early}.`;
  } else if (stated !== undefined && stated < key.validFor.start) {
    why =
      ` That is before the key's window: if the key was the inspector's then, build the trust root with an earlier --valid-from.`;
  } else if (stated !== undefined && _within(key, stated) && o.now < key.validFor.start) {
    // Dated ahead of this check's clock (within the skew check allows), into a window not yet open.
    why = ` That is inside the key's window, but this check's time ${
      _iso(o.now)
    } is before the window starts: the key is not yet valid, and a verdict is judged at its stated time and at the time it is checked. Check it again once the window has started.`;
  } else if (stated !== undefined && _within(key, stated) && !_within(key, o.now)) {
    // Inside its window by the statement's own word, and ended or revoked since.
    why =
      " That is inside the key's window, but the key has been ended or revoked since, and a statement's time is its signer's own word: a verdict stays checkable after its key is retired only with an RFC 3161 token over its signature, given to `check --timestamp`.";
  }
  return `Your trust root lets inspector key ${_short(key.keyid)} sign ${_window(key)} (${
    _windowFlag(key)
  }).${when}${why}`;
}

/** Where an inspector key's window or revocation in the trust root comes from. */
function _windowFlag(key: TrustRootKey): string {
  return key.revoked === undefined
    ? "set with `bitaudit key trust-root --valid-from` and `--valid-until`, or ended with `--extend --end`"
    : "its revocation is the trust root's `revoked` entry (`key trust-root --extend --revoke`)";
}

async function _proverHint(
  root: TrustRoot,
  id: string,
  cp: { signedAt: number | undefined; note: unknown },
): Promise<string> {
  const { signedAt } = cp;
  const key = root.keys.find((k) => k.keyid === id);
  if (key?.role === "inspector") {
    // `key trust-root` refuses a key given as both --pub and --prover: no flag adds it as a prover.
    return `The checkpoint is signed by key ${
      _short(id)
    }, which your trust root lists as an inspector key, and a prover key is never an inspector key (\`bitaudit key trust-root\` refuses a key given as both --pub and --prover). The prover signs its checkpoints with a separate key of its own, added with \`bitaudit key trust-root --prover\`.`;
  }
  if (key === undefined || key.role !== "prover") {
    return `The prover key ${
      _short(id)
    } that signed the checkpoint is not a prover key of your trust root (add its public key with \`bitaudit key trust-root --prover\`).`;
  }
  // The origin the key signed, not the recorded one: a record naming another origin beside the
  // pinned one's note, or a note the key never signed, is no second log of the prover's.
  const origin = key.origin === undefined ? undefined : await _signedOrigin(cp.note, key);
  if (origin !== undefined && origin !== key.origin) {
    return `Your trust root lets prover key ${_short(id)} sign checkpoints of the log ${
      JSON.stringify(key.origin)
    } only (set with \`bitaudit key trust-root --prover-origin\`); this checkpoint names ${
      JSON.stringify(origin)
    }. The same key under another origin is another log, or the same records offered under a second name: ask the prover which log it publishes.`;
  }
  const when = signedAt === undefined
    ? ""
    : ` The prover signed the checkpoint at ${_iso(signedAt)}.`;
  const early = signedAt !== undefined && signedAt < key.validFor.start
    ? ` That is before the key's window, so the checkpoint does not count; this is a setting of your trust root, not a sign of tampering. If the key was the prover's then, build the trust root with \`--prover-valid-from ${
      _iso(signedAt)
    }\` or earlier.`
    : "";
  return `Your trust root dates prover key ${_short(id)} ${
    _window(key)
  } (set with \`bitaudit key trust-root --prover-valid-from\`, which defaults to --valid-from).${when}${early}`;
}

/** The origin of the checkpoint note when `key` signed it, else undefined. */
async function _signedOrigin(note: unknown, key: TrustRootKey): Promise<string | undefined> {
  if (typeof note !== "string") return undefined;
  try {
    const v = await verifyCheckpoint(note, [key.publicKey]);
    return v.verified ? v.checkpoint.origin : undefined;
  } catch {
    return undefined; // a malformed note names no origin
  }
}

function _window(key: TrustRootKey): string {
  const end = key.validFor.end === undefined ? "" : ` until ${_iso(key.validFor.end)}`;
  const revoked = key.revoked === undefined
    ? ""
    : `, revoked at ${_iso(key.revoked.time)} (${key.revoked.reason})`;
  return `from ${_iso(key.validFor.start)}${end}${revoked}`;
}

/** The statement's predicate, read without trusting it (only dates for a hint come from it). */
function _predicate(envelope: DsseEnvelope, signed: boolean): Record<string, unknown> | undefined {
  try {
    const bytes = decodeBase64(envelope.payload, { alphabet: "any" });
    if (!signed && bytes.length > UNSIGNED_READ_BYTES) return undefined;
    return _object(parseStatement(bytes).predicate);
  } catch {
    return undefined;
  }
}

function _object(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? v as Record<string, unknown>
    : undefined;
}

function _time(v: unknown): number | undefined {
  try {
    return typeof v === "string" ? parseRfc3339(v) : undefined;
  } catch {
    return undefined;
  }
}

function _iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.000Z$/, "Z");
}

function _short(keyid: string): string {
  return `${keyid.slice(0, 16)}…`;
}
