/**
 * The audit's trust inputs from files: a drand round with its chain info (verified offline) and
 * the prover's signed checkpoint (verified with the prover's public key), or randomness typed on
 * the command line (recorded as unverified).
 *
 * @module
 */
import {
  ANNOUNCED_ID_PREFIX,
  checkAnnouncement,
  type CheckpointBinding,
  checkpointBinding,
  datedBeforeCheckpoint,
  type DatedInput,
  decodeBase64,
  decodePublicKeyPem,
  type DrandBinding,
  drandBinding,
  type DsseEnvelope,
  encodeBase64,
  keyId,
  MAX_TIMESTAMP_TOKEN_BYTES,
  parseDrandChainInfo,
  parseDrandRound,
  parseEnvelope,
  parseRfc3339,
  parseStatement,
  signedBeforeInputs,
  timestampImprintMismatch,
  timestampResponseDer,
  type TrustRootKey,
  verifyCheckpoint,
  verifyDrandRound,
  verifyEnvelope,
  verifyTimestampToken,
} from "../attest/mod.ts";
import { type ClaimLog, hexToBytes } from "../claims/mod.ts";
import { InputError, UsageError } from "../errors.ts";
import { quoteForTerminal, quoteShort } from "../escape_text.ts";
import type { PlanEvidence } from "../verify/mod.ts";
import { readBinaryFile, readTextFile } from "./read_json_file.ts";
import { loadPublicKeyPem } from "./load_inputs.ts";
import { type KeyInUse, refuseEvidenceProverKey } from "./refuse_prover_key.ts";
import { countNoun } from "./count_noun.ts";

/** File and flag inputs of {@link loadTrustInputs} (as the `audit` command's options). */
export interface TrustInputFlags {
  /** Typed randomness (hex), instead of `beacon`. */
  readonly randomness?: string;
  /** Round of the typed randomness. */
  readonly round?: string;
  /** drand round JSON file. */
  readonly beacon?: string;
  /** drand chain info JSON file. */
  readonly chain?: string;
  /** The prover's signed checkpoint file. */
  readonly checkpoint?: string;
  /** The prover's public key (SPKI PEM) file. */
  readonly proverPub?: string;
  /** The inspector's announcement (DSSE envelope) file. */
  readonly announcement?: string;
  /** RFC 3161 token or response file over the announcement's signature. */
  readonly announcementTimestamp?: string;
  /** Sample size, compared with the announcement's. */
  readonly k?: string;
  /** Audit id, compared with the announcement's. */
  readonly auditId?: string;
}

/**
 * The trust inputs as the files held them (a plan carries them, so that `audit merge` and
 * `audit serve` verify exactly what `audit` verified and bind the same evidence).
 */
export type TrustEvidence = PlanEvidence;

/** The resolved randomness and the bindings for the attestation. */
export interface TrustInputs {
  /** The evidence they were verified from. */
  readonly evidence: TrustEvidence;
  /** Randomness (lowercase hex). */
  readonly randomness: string;
  /** Round number as text (validated by the caller). */
  readonly round: string;
  /** The verified drand round, when one was given. */
  readonly drand?: DrandBinding;
  /** The verified prover checkpoint, when one was given. */
  readonly checkpoint?: CheckpointBinding;
  /** The announcement envelope (parsed JSON) and the audit id it derives, when one was given. */
  readonly announcement?: {
    readonly envelope: DsseEnvelope;
    readonly auditId: string;
    /** Time-stamp response DER over its signature (checked by `check`). */
    readonly timestamp?: Uint8Array;
  };
}

/**
 * Resolves the audit's randomness and verifies the beacon and checkpoint files.
 *
 * @param flags command-line values
 * @param ctx the claim log (the checkpoint must commit to exactly it), the audit's inspector
 *   public `keys` (one of them must have signed an announcement), and `uses`: every key the
 *   command signs or computes with, none of which may be the prover's
 * @returns randomness, round and bindings
 * @throws {UsageError} `USAGE_TRUST` for a wrong combination of flags, `USAGE_KEYS` for a key in
 *   `uses` that is the `--prover-pub` key; {InputError} `BAD_BEACON`,
 *   `BEACON_INVALID`, `BAD_NOTE`, `BAD_CHECKPOINT`, `CHECKPOINT_SIGNATURE`, `CHECKPOINT_MISMATCH`,
 *   `BEACON_TOO_EARLY`, `BAD_ENVELOPE`, `ANNOUNCEMENT_MISMATCH`, `BAD_TIMESTAMP_TOKEN`
 * @example
 * ```ts ignore
 * const t = await loadTrustInputs({ beacon, chain, checkpoint, proverPub }, { log, keys, uses });
 * ```
 */
export async function loadTrustInputs(
  flags: TrustInputFlags,
  ctx: { log: ClaimLog; keys: readonly Uint8Array[]; uses: readonly KeyInUse[] },
): Promise<TrustInputs> {
  const f = flags;
  if ((f.beacon === undefined) === (f.randomness === undefined)) {
    _usage("give either --beacon with --chain, or --randomness with --round");
  }
  if (f.beacon !== undefined && (f.chain === undefined || f.round !== undefined)) {
    _usage("--beacon needs --chain and takes its round from the beacon file (no --round)");
  }
  if (f.beacon !== undefined && f.checkpoint === undefined) {
    _usage("--beacon needs --checkpoint: the round must be shown to follow the commitment");
  }
  if (f.randomness !== undefined && f.round === undefined) _usage("--randomness needs --round");
  if ((f.checkpoint === undefined) !== (f.proverPub === undefined)) {
    _usage("--checkpoint and --prover-pub go together");
  }
  if (f.announcement !== undefined && f.beacon === undefined) {
    _usage("--announcement needs --beacon: it names the round that fixes the randomness");
  }
  if (f.announcementTimestamp !== undefined && f.announcement === undefined) {
    _usage("--announcement-timestamp needs --announcement");
  }
  const text = (path: string | undefined, maxBytes = 64 * 1024) =>
    path === undefined ? undefined : readTextFile(path, { maxBytes });
  const evidence = _defined({
    beacon: await text(f.beacon),
    chain: await text(f.chain),
    checkpoint: await text(f.checkpoint),
    // Read as a key here, where a file that is none can be named with its flag.
    proverPub: f.proverPub === undefined
      ? undefined
      : (await loadPublicKeyPem(f.proverPub, { option: "--prover-pub" })).pem,
    announcement: await text(f.announcement, 1024 * 1024),
    announcementTimestamp: f.announcementTimestamp === undefined
      ? undefined
      : encodeBase64(await _bytes(f.announcementTimestamp)),
  });
  const typed = f.randomness === undefined
    ? undefined
    : { randomness: f.randomness, round: f.round as string };
  return await verifyTrustEvidence(evidence, {
    log: { root: ctx.log.root, size: ctx.log.records.length },
    keys: ctx.keys,
    uses: ctx.uses,
    typed,
    k: f.k,
    auditId: f.auditId,
    names: {
      beacon: `beacon '${f.beacon}'`,
      checkpoint: `checkpoint '${f.checkpoint}'`,
      prover: `--prover-pub ${quoteForTerminal(f.proverPub ?? "")}`,
    },
  });
}

/**
 * Verifies trust evidence (as {@link loadTrustInputs} read it, or as a plan carries it): the
 * prover's checkpoint against its key and the log, the drand round against its chain and after
 * the checkpoint, the announcement against the inspector keys, the audit's k and id. First of
 * all, no key the command signs or computes with may be the prover's.
 *
 * @param evidence the texts
 * @param ctx the log's `root` and `size`; the inspector `keys`; `uses`, every key the command
 *   signs or computes with (refused when it is the prover's); `typed` randomness and round when
 *   there is no beacon; the audit's `k` and `auditId`, compared with an announcement's; `names`
 *   of the beacon, checkpoint and prover key for messages (default: "the beacon round", "the
 *   checkpoint", "the plan's prover key")
 * @returns randomness, round, bindings and the evidence
 * @throws {UsageError} `USAGE_KEYS` for a key in `uses` that is the prover's
 * @throws {InputError} as {@link loadTrustInputs}; `PLAN_INVALID` for evidence that is neither a
 *   beacon with its chain nor typed randomness; `ANNOUNCEMENT_MISMATCH` for an audit id of the
 *   announced form (`announced-...`) without an announcement
 * @example
 * ```ts ignore
 * const t = await verifyTrustEvidence(plan.evidence, { log, keys, uses, typed, k: "10" });
 * ```
 */
export async function verifyTrustEvidence(
  evidence: TrustEvidence,
  ctx: {
    log: { root: string; size: number };
    keys: readonly Uint8Array[];
    uses: readonly KeyInUse[];
    typed?: { randomness: string; round: string } | undefined;
    k?: string | undefined;
    auditId?: string | undefined;
    names?: { beacon: string; checkpoint: string; prover: string };
  },
): Promise<TrustInputs> {
  const e = evidence;
  const names = ctx.names ??
    { beacon: "the beacon round", checkpoint: "the checkpoint", prover: "the plan's prover key" };
  // Before anything is verified: a usage error, whatever else the evidence holds.
  refuseEvidenceProverKey(e, { uses: ctx.uses, from: names.prover });
  // `check` refuses an announced id without the announcement it derives from: it would read as
  // one that an announcement fixed in advance.
  if (e.announcement === undefined && ctx.auditId?.startsWith(ANNOUNCED_ID_PREFIX)) {
    throw new InputError(
      "ANNOUNCEMENT_MISMATCH",
      `Cannot use the audit id ${quoteShort(ctx.auditId, 48)}: an id starting with ` +
        `'${ANNOUNCED_ID_PREFIX}' is derived from an announcement, and the audit has none (give ` +
        "its --announcement, or another --audit-id)",
    );
  }
  const checkpoint = e.checkpoint === undefined || e.proverPub === undefined
    ? undefined
    : await _checkpoint(e.checkpoint, { pub: e.proverPub, log: ctx.log, name: names.checkpoint });
  if (e.beacon === undefined || e.chain === undefined) {
    if (ctx.typed === undefined || e.announcement !== undefined) {
      throw new InputError(
        "PLAN_INVALID",
        "Cannot use the trust evidence: neither a drand round with its chain nor typed randomness",
      );
    }
    return {
      evidence,
      randomness: ctx.typed.randomness,
      round: ctx.typed.round,
      ...(checkpoint === undefined ? {} : { checkpoint }),
    };
  }
  const info = parseDrandChainInfo(e.chain);
  const round = parseDrandRound(e.beacon);
  const v = verifyDrandRound(info, round);
  if (!v.verified) {
    throw new InputError("BEACON_INVALID", `Cannot use ${names.beacon}: ${v.reason}`);
  }
  if (checkpoint === undefined) {
    throw new InputError(
      "PLAN_INVALID",
      "Cannot use the trust evidence: a drand round needs the prover's checkpoint",
    );
  }
  if (v.roundTime * 1000 <= Date.parse(checkpoint.signedAt)) {
    throw new InputError(
      "BEACON_TOO_EARLY",
      `Cannot use beacon round ${v.round}: published ${
        new Date(v.roundTime * 1000).toISOString()
      }, not after the checkpoint was signed (${checkpoint.signedAt})`,
    );
  }
  const drand = drandBinding(info, round);
  const announcement = e.announcement === undefined
    ? undefined
    : await _announcement(e, { ctx, drand, checkpoint });
  return {
    evidence,
    randomness: v.randomness,
    round: String(v.round),
    drand,
    checkpoint,
    ...(announcement === undefined ? {} : { announcement }),
  };
}

async function _announcement(
  e: TrustEvidence,
  o: {
    ctx: { keys: readonly Uint8Array[]; k?: string | undefined; auditId?: string | undefined };
    drand: DrandBinding;
    checkpoint: CheckpointBinding;
  },
): Promise<{ envelope: DsseEnvelope; auditId: string; timestamp?: Uint8Array }> {
  const text = e.announcement!;
  const env = parseEnvelope(text);
  const audit = {
    auditId: o.ctx.auditId,
    k: o.ctx.k === undefined ? undefined : Number(o.ctx.k),
    checkpoint: o.checkpoint,
    drand: o.drand,
  };
  // The audit's own inspector keys must have signed it; the id is the announced one.
  const unverified = parseStatement(decodeBase64(env.payload, { alphabet: "any" }));
  const announcedId = (unverified.predicate as { auditId?: unknown })?.auditId;
  if (audit.auditId === undefined) audit.auditId = String(announcedId);
  // There is no trust root at audit time, only the --key files: an announcement none of them
  // signed is named by the key that did (as its signature states it), not judged by validity.
  if (!(await verifyEnvelope(env, { trustedKeys: o.ctx.keys })).verified) {
    const named = env.signatures.map((s) => s.keyid).filter((id) => id !== "");
    const by = named.length === 0
      ? "another key"
      : `key ${named.map((id) => `${id.slice(0, 16)}…`).join(", key ")}`;
    throw new InputError(
      "ANNOUNCEMENT_MISMATCH",
      `Cannot use the announcement: it was signed by ${by}, not by any --key given (the ` +
        "announcement and the audit are signed with the same inspector key)",
    );
  }
  const root = { mediaType: "", keys: o.ctx.keys.map((publicKey) => _inspector(publicKey)) };
  const r = await checkAnnouncement(JSON.parse(text), { trustRoot: root, audit });
  if ("why" in r) {
    throw new InputError("ANNOUNCEMENT_MISMATCH", `Cannot use the announcement: ${r.why}`);
  }
  const stamp = e.announcementTimestamp;
  const timestamp = stamp === undefined ? undefined : timestampResponseDer(decodeBase64(stamp));
  const stampedAt = timestamp === undefined
    ? undefined
    : await _stampedBeforeRound(env, timestamp, r.announcement.beacon);
  // As `check` reads it: the token's time when there is one, else the stated time.
  const at = stampedAt ?? parseRfc3339(r.announcement.announcedAt);
  if (datedBeforeCheckpoint(at, parseRfc3339(o.checkpoint.signedAt))) {
    throw new InputError(
      "ANNOUNCEMENT_MISMATCH",
      `Cannot use the announcement: it is dated ${
        new Date(at).toISOString()
      }, before the checkpoint it names was signed (${o.checkpoint.signedAt}), so no checker ` +
        "would accept the audit",
    );
  }
  return {
    envelope: env,
    auditId: r.announcement.auditId,
    // The TSA's signature is not checked here (its anchors are the checker's trust root, not
    // ours); what the token states is: a token over none of the announcement's signatures, or
    // dated at or after the round, makes an attestation every checker refuses.
    ...(timestamp === undefined ? {} : { timestamp }),
  };
}

/**
 * Refuses an announcement's token that covers none of its signatures, or whose stated time is
 * not before the round's (the time a checker reads once it trusts the TSA); returns that time.
 */
async function _stampedBeforeRound(
  env: DsseEnvelope,
  token: Uint8Array,
  round: { readonly round: number; readonly roundTime: string },
): Promise<number> {
  for (const s of env.signatures) {
    const message = decodeBase64(s.sig, { alphabet: "any" });
    if (timestampImprintMismatch(token, message) !== undefined) continue;
    const { time } = await verifyTimestampToken(token, { message, anchors: [] });
    if (time === undefined) {
      throw new InputError(
        "ANNOUNCEMENT_MISMATCH",
        "Cannot use the announcement's timestamp: its time cannot be read (a malformed accuracy)",
      );
    }
    if (time >= parseRfc3339(round.roundTime)) {
      throw new InputError(
        "ANNOUNCEMENT_LATE",
        `Cannot use the announcement's timestamp: it dates the announcement ${
          new Date(time).toISOString()
        }, not before round ${round.round} (${round.roundTime}), so no checker would accept ` +
          "the audit",
      );
    }
    return time;
  }
  throw new InputError(
    "ANNOUNCEMENT_MISMATCH",
    "Cannot use the announcement's timestamp: it is not a token over one of the announcement's " +
      "signatures",
  );
}

/**
 * Refuses a `--time` before the inputs the verdict is computed from: the drand round (published
 * at its round time) and the checkpoint (signed at its cosignature time); an announcement always
 * precedes its round. `check` fails a verdict dated so (beyond the clock skew it allows), so such a
 * verdict would be signed for nobody to accept.
 *
 * @param time the `--time` flag as `timeFlag` read it (undefined: now, nothing to refuse)
 * @param trust the verified trust inputs
 * @throws {UsageError} `USAGE_TIME`
 * @example
 * ```ts
 * import { timeAfterTrustInputs } from "./trust_inputs.ts";
 * timeAfterTrustInputs("2026-05-01T00:00:00Z", { evidence: {}, randomness: "ab", round: "1" });
 * ```
 */
export function timeAfterTrustInputs(time: string | undefined, trust: TrustInputs): void {
  if (time === undefined) return;
  const inputs: DatedInput[] = [
    ...(trust.drand === undefined ? [] : [{
      what: `drand round ${trust.drand.round} (published ${trust.drand.roundTime})`,
      at: parseRfc3339(trust.drand.roundTime),
    }]),
    ...(trust.checkpoint === undefined ? [] : [{
      what: `the checkpoint (signed ${trust.checkpoint.signedAt})`,
      at: parseRfc3339(trust.checkpoint.signedAt),
    }]),
  ];
  const before = signedBeforeInputs(parseRfc3339(time), inputs);
  if (before !== null) {
    throw new UsageError(
      "USAGE_TIME",
      `Cannot use --time ${time}: it is before ${before.what}, and a verdict cannot be computed ` +
        "before the inputs it rests on exist (check fails such a verdict)",
    );
  }
}

function _defined(e: Record<keyof TrustEvidence, string | undefined>): TrustEvidence {
  return Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined));
}

async function _bytes(path: string): Promise<Uint8Array> {
  return await readBinaryFile(path, MAX_TIMESTAMP_TOKEN_BYTES);
}

function _inspector(publicKey: Uint8Array): TrustRootKey {
  return { keyid: keyId(publicKey), publicKey, role: "inspector", validFor: { start: 0 } };
}

async function _checkpoint(
  note: string,
  o: { pub: string; log: { root: string; size: number }; name: string },
) {
  const pub = decodePublicKeyPem(o.pub);
  const v = await verifyCheckpoint(note, [pub]);
  if (!v.verified) {
    throw new InputError(
      "CHECKPOINT_SIGNATURE",
      `Cannot use ${o.name}: no valid signature by the prover key (${v.reason})`,
    );
  }
  const root = hexToBytes(o.log.root);
  if (
    v.checkpoint.treeSize !== o.log.size ||
    !v.checkpoint.rootHash.every((b, i) => b === root[i])
  ) {
    throw new InputError(
      "CHECKPOINT_MISMATCH",
      `Cannot use ${o.name}: it commits to ${
        countNoun(v.checkpoint.treeSize, "record")
      } with another root than the log's ${o.log.size}`,
    );
  }
  if (v.signedAt === undefined) {
    throw new InputError(
      "CHECKPOINT_SIGNATURE",
      `Cannot use ${o.name}: no timestamped cosignature by the prover key`,
    );
  }
  return checkpointBinding(note, v);
}

function _usage(why: string): never {
  throw new UsageError("USAGE_TRUST", `Cannot start the audit: ${why}`);
}
