/**
 * The checks `check` runs on the inputs an audit takes on trust otherwise: the drand round that
 * fixed the randomness (re-verified offline, chain pinned in the trust root) and the prover's
 * signed checkpoint (prover key from the trust root, valid when it signed), and that the round
 * was published after the checkpoint was signed. Randomness without a drand round, or an audit
 * without a checkpoint, passes these checks but is labelled.
 *
 * @module
 */
import { checkAnnouncement, datedBeforeCheckpoint } from "./announcement/mod.ts";
import { type DrandBinding, reverifyDrandBinding, trustedDrandChains } from "./beacon/mod.ts";
import { decodeBase64 } from "./base64.ts";
import { keyId } from "./key_id.ts";
import { keyValidAt } from "./key_valid_at.ts";
import { type CheckpointBinding, verifyCheckpoint } from "./note/mod.ts";
import { bytesToHex } from "../claims/mod.ts";
import { parseRfc3339 } from "./rfc3339.ts";
import { type DatedInput, signedBeforeInputs } from "./signed_before_inputs.ts";
import type { TrustRoot } from "./trust_root.ts";

/** How the audit's trust inputs were established. */
export interface TrustLabels {
  /** `drand`: a re-verified round of a pinned chain; `unverified`: stated by the inspector. */
  readonly randomness: "drand" | "unverified";
  /**
   * `prover-signed`: a checkpoint signed by a trusted prover key; `refused`: a checkpoint is
   * recorded but its check failed; `none`: no checkpoint.
   */
  readonly commitment: "prover-signed" | "refused" | "none";
  /**
   * `timestamped`: a verified announcement with an RFC 3161 time before the round fixed the
   * audit (the time-stamp authority vouches for the order); `pre-committed`: a verified
   * announcement dated only by the inspector's stated time, which the inspector can write after
   * the round as well as before (the order is the inspector's word); `none`: no announcement.
   */
  readonly announcement: "timestamped" | "pre-committed" | "none";
}

/** Adds one named check result. */
export type AddCheck = (check: string, ok: boolean, detail: string) => void;

/**
 * Checks the beacon and checkpoint recorded in a verdict predicate's `audit` object.
 *
 * @param audit the predicate's `audit` object (from the verified payload)
 * @param options trust root, the callback that records each check, and `now` (the verification
 *   time, default the clock): a key judged at a signer's own stated time (the prover's
 *   checkpoint, an announcement without a timestamp) must also be valid then, as signatures are;
 *   `verdictTime`, the verdict's stated signing time (ms): with it, a `verdict-time` check fails a
 *   verdict dated before the verified round, checkpoint or announcement it was computed from
 * @returns the labels for the report
 * @example
 * ```ts ignore
 * const labels = await checkTrustInputs(predicate.audit, { trustRoot, add });
 * ```
 */
export async function checkTrustInputs(
  audit: Readonly<Record<string, unknown>>,
  options: { trustRoot: TrustRoot; add: AddCheck; now?: Date; verdictTime?: number },
): Promise<TrustLabels> {
  const { trustRoot, add } = options;
  const now = options.now ?? new Date();
  const beacon = _obj(audit.beacon);
  const drand = _obj(beacon?.drand) as DrandBinding | undefined;
  let roundTime: number | undefined;
  if (beacon?.source === "drand" || drand !== undefined) {
    roundTime = _checkBeacon(beacon ?? {}, drand, { trustRoot, add });
  } else {
    add("beacon", true, "randomness is NOT from a verified beacon: stated by the inspector");
  }
  const cp = _obj(audit.checkpoint) as CheckpointBinding | undefined;
  let signedAt: number | undefined;
  if (cp !== undefined) signedAt = await _checkCheckpoint(audit, cp, { trustRoot, add, now });
  else add("checkpoint", true, "no signed checkpoint: the log root is the inspector's word");
  if (roundTime !== undefined && signedAt !== undefined) {
    add(
      "beacon-after-commitment",
      roundTime > signedAt,
      `round published ${new Date(roundTime).toISOString()}, checkpoint signed ${
        new Date(signedAt).toISOString()
      }`,
    );
  }
  const announced = await _checkAnnouncement(audit, { trustRoot, add, drand, cp, signedAt, now });
  if (options.verdictTime !== undefined) {
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, "Z");
    const inputs: DatedInput[] = [
      ...(roundTime === undefined
        ? []
        : [{ what: `drand round ${drand?.round} (published ${iso(roundTime)})`, at: roundTime }]),
      ...(signedAt === undefined
        ? []
        : [{ what: `the checkpoint (signed ${iso(signedAt)})`, at: signedAt }]),
      ...(announced.at === undefined
        ? []
        : [{ what: `the announcement (dated ${iso(announced.at)})`, at: announced.at }]),
    ];
    _checkVerdictTime(options.verdictTime, inputs, add);
  }
  return {
    randomness: roundTime === undefined ? "unverified" : "drand",
    commitment: cp === undefined ? "none" : signedAt === undefined ? "refused" : "prover-signed",
    announcement: announced.label,
  };
}

/**
 * A verdict is computed from its round, checkpoint and announcement: one dated before any of them
 * (beyond the clock skew) states what cannot be. Nothing to compare without a verified input.
 */
function _checkVerdictTime(stated: number, inputs: readonly DatedInput[], add: AddCheck): void {
  if (inputs.length === 0) return;
  const at = new Date(stated).toISOString().replace(/\.000Z$/, "Z");
  const before = signedBeforeInputs(stated, inputs);
  add(
    "verdict-time",
    before === null,
    before === null
      ? `verdict signed ${at}, after ${inputs.map((i) => i.what).join(", ")}`
      : `the verdict states it was signed ${at}, before ${before.what}: a verdict cannot be ` +
        "computed before the inputs it rests on exist",
  );
}

async function _checkAnnouncement(
  audit: Readonly<Record<string, unknown>>,
  o: {
    trustRoot: TrustRoot;
    add: AddCheck;
    drand: DrandBinding | undefined;
    cp: CheckpointBinding | undefined;
    /** When the checkpoint was signed (ms), once its check passed. */
    signedAt: number | undefined;
    now: Date;
  },
): Promise<{ label: TrustLabels["announcement"]; at?: number }> {
  const none = { label: "none" } as const;
  const ann = _obj(audit.announcement);
  if (ann === undefined) {
    o.add(
      "announcement",
      true,
      "sample not pre-committed: no announcement fixed the audit id and round in advance",
    );
    return none;
  }
  let timestamp: Uint8Array | undefined;
  try {
    if (ann.timestamp !== undefined) timestamp = decodeBase64(String(ann.timestamp));
  } catch {
    o.add("announcement", false, "the announcement's timestamp is not base64");
    return none;
  }
  const r = await checkAnnouncement(ann.envelope, {
    ...(timestamp === undefined ? {} : { timestamp }),
    trustRoot: o.trustRoot,
    now: o.now,
    audit: {
      auditId: audit.auditId,
      k: audit.k,
      ...(o.cp === undefined ? {} : { checkpoint: o.cp }),
      ...(o.drand === undefined ? {} : { drand: o.drand }),
    },
  });
  if ("why" in r) {
    o.add("announcement", false, r.why);
    return none;
  }
  // The announcement names the checkpoint: one dated before the checkpoint was signed (beyond
  // the clock skew) was not made when it says, or names a checkpoint it could not have seen.
  const at = r.timestampedAt ?? r.announcement.announcedAt;
  if (o.signedAt !== undefined && datedBeforeCheckpoint(parseRfc3339(at), o.signedAt)) {
    o.add(
      "announcement",
      false,
      `the announcement is dated ${at}, before the checkpoint it names was signed (${
        new Date(o.signedAt).toISOString()
      }): an announcement cannot name a checkpoint signed after it`,
    );
    return none;
  }
  // Only a token dates the announcement before the round: a stated time is written by the
  // inspector, who could write it after the round (choosing k, or the round itself, then).
  const round = r.announcement.beacon.round;
  o.add(
    "announcement",
    true,
    r.timestampedAt === undefined
      ? `audit announced at ${r.announcement.announcedAt}, the inspector's stated time only (no ` +
        `timestamp: that it preceded round ${round} is the inspector's word)`
      : `audit announced by ${r.timestampedAt} (RFC 3161 timestamp), before round ${round}`,
  );
  return {
    label: r.timestampedAt === undefined ? "pre-committed" : "timestamped",
    at: parseRfc3339(at),
  };
}

function _checkBeacon(
  beacon: Record<string, unknown>,
  drand: DrandBinding | undefined,
  o: { trustRoot: TrustRoot; add: AddCheck },
): number | undefined {
  if (drand === undefined || beacon.source !== "drand") {
    o.add("beacon", false, "beacon.source and beacon.drand must come together");
    return undefined;
  }
  let why: string | undefined;
  let time: number | undefined;
  try {
    const { verification: v, timeAgrees } = reverifyDrandBinding(drand);
    const pinned = trustedDrandChains(o.trustRoot.drand).find((c) => c.chainHash === v.chainHash);
    const name = (id: string) => id === "" ? "default" : id;
    if (!v.verified) why = `the drand round does not verify (${v.reason})`;
    else if (pinned === undefined) {
      why = `drand chain ${v.chainHash} is not pinned in the trust root`;
    } else if (name(pinned.beaconId) !== name(drand.beaconId)) {
      // The chain hash runs the genesis seed and the beacon id together: bytes moved from one to
      // the other keep the hash and change the name shown.
      why = `beacon id '${drand.beaconId}' is not the pinned chain's '${pinned.beaconId}'`;
    } else if (v.randomness !== beacon.randomness) why = "randomness is not SHA-256(signature)";
    else if (v.round !== beacon.round) why = "beacon.round differs from the drand round";
    else if (!timeAgrees) why = "the recorded round time is not the chain's";
    else time = v.roundTime * 1000;
  } catch (e) {
    why = `malformed drand binding (${(e as Error).message})`;
  }
  o.add(
    "beacon",
    why === undefined,
    why ?? `drand ${drand.beaconId} round ${drand.round}: BLS signature verified, chain pinned`,
  );
  return why === undefined ? time : undefined;
}

async function _checkCheckpoint(
  audit: Readonly<Record<string, unknown>>,
  cp: CheckpointBinding,
  o: { trustRoot: TrustRoot; add: AddCheck; now: Date },
): Promise<number | undefined> {
  let why: string | undefined;
  let signedAt: number | undefined;
  try {
    const provers = o.trustRoot.keys.filter((k) => k.role === "prover").map((k) => k.publicKey);
    const v = await verifyCheckpoint(String(cp.note), provers);
    const kid = v.publicKey === undefined ? "" : keyId(v.publicKey);
    const at = v.signedAt === undefined ? undefined : v.signedAt * 1000;
    const validity = at === undefined
      ? undefined
      : keyValidAt(o.trustRoot, { keyid: kid, time: new Date(at), role: "prover" });
    // The signing time is the prover's own word: a stolen key could backdate a checkpoint to
    // before its revocation, so the key must also be valid now (as signatures are judged).
    const still = keyValidAt(o.trustRoot, { keyid: kid, time: o.now, role: "prover" });
    const pinned = o.trustRoot.keys.find((k) => k.keyid === kid)?.origin;
    if (!v.verified) why = `no valid prover signature (${v.reason})`;
    else if (pinned !== undefined && pinned !== v.checkpoint.origin) {
      // The same records under another origin are another checkpoint, and another announced
      // audit id: a pinned origin leaves the prover one log to offer.
      why = `the checkpoint's origin ${JSON.stringify(v.checkpoint.origin)} is not ` +
        `${JSON.stringify(pinned)}, the one origin the trust root lets prover key ` +
        `${kid.slice(0, 16)}… sign`;
    } else if (at === undefined) why = "the checkpoint has no signing time (cosignature)";
    else if (!validity?.valid) why = `prover key not valid when it signed (${validity?.reason})`;
    else if (!still.valid) {
      why =
        `prover key not valid at the verification time ${o.now.toISOString()} (${still.reason})`;
    } else if (bytesToHex(v.checkpoint.rootHash) !== audit.logRoot) {
      why = "the checkpoint root is not the audited log root";
    } else if (v.checkpoint.treeSize !== audit.population) {
      why = "the checkpoint size is not the audited population";
    } else if (
      cp.origin !== v.checkpoint.origin || cp.treeSize !== v.checkpoint.treeSize ||
      cp.rootHash !== audit.logRoot || cp.proverKeyId !== kid ||
      parseRfc3339(String(cp.signedAt)) !== at
    ) {
      why = "the recorded checkpoint fields differ from the signed note";
    } else signedAt = at;
  } catch (e) {
    why = `malformed checkpoint (${(e as Error).message})`;
  }
  o.add(
    "checkpoint",
    why === undefined,
    why ?? `prover checkpoint ${cp.origin} (${cp.treeSize} records) signed ${cp.signedAt}`,
  );
  return signedAt;
}

function _obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? v as Record<string, unknown>
    : undefined;
}
