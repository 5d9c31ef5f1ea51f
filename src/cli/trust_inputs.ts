/**
 * The audit's trust inputs from files: a drand round with its chain info (verified offline) and
 * the prover's signed checkpoint (verified with the prover's public key), or randomness typed on
 * the command line (recorded as unverified).
 *
 * @module
 */
import {
  checkAnnouncement,
  type CheckpointBinding,
  checkpointBinding,
  decodeBase64,
  decodePublicKeyPem,
  type DrandBinding,
  drandBinding,
  type DsseEnvelope,
  keyId,
  MAX_TIMESTAMP_TOKEN_BYTES,
  parseDrandChainInfo,
  parseDrandRound,
  parseEnvelope,
  parseStatement,
  timestampResponseDer,
  type TrustRootKey,
  verifyCheckpoint,
  verifyDrandRound,
} from "../attest/mod.ts";
import { type ClaimLog, hexToBytes } from "../claims/mod.ts";
import { InputError } from "../errors.ts";
import { readTextFile } from "./read_json_file.ts";

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

/** The resolved randomness and the bindings for the attestation. */
export interface TrustInputs {
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
 * @param ctx the claim log (the checkpoint must commit to exactly it) and the audit's inspector
 *   public keys (one of them must have signed an announcement)
 * @returns randomness, round and bindings
 * @throws {InputError} `USAGE_TRUST` for a wrong combination of flags, `BAD_BEACON`,
 *   `BEACON_INVALID`, `BAD_NOTE`, `BAD_CHECKPOINT`, `CHECKPOINT_SIGNATURE`, `CHECKPOINT_MISMATCH`,
 *   `BEACON_TOO_EARLY`, `BAD_ENVELOPE`, `ANNOUNCEMENT_MISMATCH`, `BAD_TIMESTAMP_TOKEN`
 * @example
 * ```ts ignore
 * const t = await loadTrustInputs({ beacon, chain, checkpoint, proverPub }, { log, keys });
 * ```
 */
export async function loadTrustInputs(
  flags: TrustInputFlags,
  ctx: { log: ClaimLog; keys: readonly Uint8Array[] },
): Promise<TrustInputs> {
  const { log, keys } = ctx;
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
  const checkpoint = f.checkpoint === undefined
    ? undefined
    : await _checkpoint(f.checkpoint, f.proverPub as string, log);
  if (f.beacon === undefined) {
    return {
      randomness: f.randomness as string,
      round: f.round as string,
      ...(checkpoint === undefined ? {} : { checkpoint }),
    };
  }
  const info = parseDrandChainInfo(await readTextFile(f.chain as string, { maxBytes: 64 * 1024 }));
  const round = parseDrandRound(await readTextFile(f.beacon, { maxBytes: 64 * 1024 }));
  const v = verifyDrandRound(info, round);
  if (!v.verified) {
    throw new InputError("BEACON_INVALID", `Cannot use beacon '${f.beacon}': ${v.reason}`);
  }
  const cp = checkpoint as CheckpointBinding;
  if (v.roundTime * 1000 <= Date.parse(cp.signedAt)) {
    throw new InputError(
      "BEACON_TOO_EARLY",
      `Cannot use beacon round ${v.round}: published ${
        new Date(v.roundTime * 1000).toISOString()
      }, not after the checkpoint was signed (${cp.signedAt})`,
    );
  }
  const drand = drandBinding(info, round);
  const announcement = f.announcement === undefined
    ? undefined
    : await _announcement(f.announcement, { flags: f, drand, checkpoint: cp, keys });
  return {
    randomness: v.randomness,
    round: String(v.round),
    drand,
    checkpoint: cp,
    ...(announcement === undefined ? {} : { announcement }),
  };
}

async function _announcement(
  path: string,
  o: {
    flags: TrustInputFlags;
    drand: DrandBinding;
    checkpoint: CheckpointBinding;
    keys: readonly Uint8Array[];
  },
): Promise<{ envelope: DsseEnvelope; auditId: string }> {
  const text = await readTextFile(path, { maxBytes: 1024 * 1024 });
  const env = parseEnvelope(text);
  const audit = {
    auditId: o.flags.auditId,
    k: o.flags.k === undefined ? undefined : Number(o.flags.k),
    checkpoint: o.checkpoint as unknown as Record<string, unknown>,
    drand: o.drand as unknown as Record<string, unknown>,
  };
  // The audit's own inspector keys must have signed it; the id is the announced one.
  const unverified = parseStatement(decodeBase64(env.payload, { alphabet: "any" }));
  const announcedId = (unverified.predicate as { auditId?: unknown })?.auditId;
  if (audit.auditId === undefined) audit.auditId = String(announcedId);
  const root = { mediaType: "", keys: o.keys.map((publicKey) => _inspector(publicKey)) };
  const r = await checkAnnouncement(JSON.parse(text), { trustRoot: root, audit });
  if ("why" in r) {
    throw new InputError("ANNOUNCEMENT_MISMATCH", `Cannot use announcement '${path}': ${r.why}`);
  }
  const stamp = o.flags.announcementTimestamp;
  return {
    envelope: env,
    auditId: r.announcement.auditId,
    // Only its form is checked here: the TSA anchors are the verifier's (trust root), not ours.
    ...(stamp === undefined ? {} : { timestamp: timestampResponseDer(await _bytes(stamp)) }),
  };
}

async function _bytes(path: string): Promise<Uint8Array> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    throw new InputError("INPUT_MISSING", `Cannot read '${path}': ${(e as Error).name}`);
  }
  if (!info.isFile || info.size > MAX_TIMESTAMP_TOKEN_BYTES) {
    throw new InputError(
      "INPUT_TOO_LARGE",
      `Cannot read '${path}': not a file of at most ${MAX_TIMESTAMP_TOKEN_BYTES} bytes`,
    );
  }
  return await Deno.readFile(path);
}

function _inspector(publicKey: Uint8Array): TrustRootKey {
  return { keyid: keyId(publicKey), publicKey, role: "inspector", validFor: { start: 0 } };
}

async function _checkpoint(path: string, pubPath: string, log: ClaimLog) {
  const pub = decodePublicKeyPem(await readTextFile(pubPath, { maxBytes: 64 * 1024 }));
  const note = await readTextFile(path, { maxBytes: 64 * 1024 });
  const v = await verifyCheckpoint(note, [pub]);
  if (!v.verified) {
    throw new InputError(
      "CHECKPOINT_SIGNATURE",
      `Cannot use checkpoint '${path}': no valid signature by the prover key (${v.reason})`,
    );
  }
  const root = hexToBytes(log.root);
  if (
    v.checkpoint.treeSize !== log.records.length ||
    !v.checkpoint.rootHash.every((b, i) => b === root[i])
  ) {
    throw new InputError(
      "CHECKPOINT_MISMATCH",
      `Cannot use checkpoint '${path}': it commits to ${v.checkpoint.treeSize} records with another root than the log's ${log.records.length}`,
    );
  }
  if (v.signedAt === undefined) {
    throw new InputError(
      "CHECKPOINT_SIGNATURE",
      `Cannot use checkpoint '${path}': no timestamped cosignature by the prover key`,
    );
  }
  return checkpointBinding(note, v);
}

function _usage(why: string): never {
  throw new InputError("USAGE_TRUST", `Cannot start the audit: ${why}`);
}
