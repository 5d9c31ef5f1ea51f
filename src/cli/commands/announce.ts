/**
 * `bitaudit announce`: the inspector signs, before a drand round exists, which checkpoint it will
 * audit, with how many records and which round; the audit id is derived from them.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { sha256 } from "@noble/hashes/sha2.js";
import {
  announcedAuditId,
  type Announcement,
  announcementStatement,
  datedBeforeCheckpoint,
  drandChainHash,
  drandRoundTime,
  encodeStatement,
  IN_TOTO_PAYLOAD_TYPE,
  parseDrandChainInfo,
  parseRfc3339,
  parseSignedNote,
  signEnvelope,
  verifyCheckpoint,
} from "../../attest/mod.ts";
import { bytesToHex } from "../../claims/mod.ts";
import { InputError, UsageError } from "../../errors.ts";
import { loadPublicKey, loadSigningKeys } from "../load_inputs.ts";
import { printJson, printText } from "../output.ts";
import { readTextFile } from "../read_json_file.ts";
import { writeNewFile } from "../write_new_file.ts";
import { addCommandHelp } from "../command_help.ts";
import { keysInUse, refuseProverKey } from "../refuse_prover_key.ts";
import { quoteForTerminal } from "../../escape_text.ts";
import { countNoun } from "../count_noun.ts";

/** Latest time a JavaScript Date holds (ms since the epoch). */
const MAX_DATE_MS = 8.64e15;

/** Options of {@link announceAudit}. */
export interface AnnounceOptions {
  readonly checkpoint: string;
  readonly proverPub: string;
  readonly chain: string;
  readonly round: string;
  readonly k: string;
  readonly keys: readonly string[];
  readonly out: string;
  /** Announcement time (RFC 3339); default now. */
  readonly time?: string;
}

/**
 * Builds the `announce` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { announceCommand } from "./announce.ts";
 * if (announceCommand().name() !== "announce") throw new Error();
 * ```
 */
export function announceCommand(): Command {
  return addCommandHelp(new Command("announce"))
    .description(
      "sign an audit announcement (checkpoint, k, drand chain and a round still in the future) before the round exists",
    )
    .requiredOption("--checkpoint <file>", "the prover's signed checkpoint")
    .requiredOption("--prover-pub <file>", "prover public key (SPKI PEM)")
    .requiredOption("--chain <file>", "drand chain info JSON")
    .requiredOption("--round <n>", "drand round that will fix the randomness (published later)")
    .requiredOption("--k <k>", "number of records the audit will sample")
    .requiredOption("--key <files...>", "inspector private key(s) (PKCS#8 PEM)")
    .requiredOption("--out <file>", "announcement DSSE envelope to write (never overwritten)")
    .option("--time <rfc3339>", "announcement time (default: now)")
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const a = await announceAudit({ ...opts, keys: opts.key });
      if (opts.json) printJson(a);
      else {
        printText(
          `wrote ${opts.out}: audit ${a.auditId}, k = ${a.k}, round ${a.beacon.round} (${a.beacon.roundTime})`,
        );
      }
    });
}

/**
 * Signs and writes an announcement.
 *
 * @param o options as on the command line
 * @returns the announcement
 * @throws {InputError} `CHECKPOINT_SIGNATURE`, `BAD_BEACON`, `ANNOUNCEMENT_LATE` (the round is
 *   not after the announcement time), `ANNOUNCEMENT_MISMATCH` (the checkpoint was signed after
 *   the announcement time), `USAGE_NUMBER`, `USAGE_KEYS` (a `--key` that is the prover's key),
 *   `OUTPUT_EXISTS`, ...
 * @example
 * ```ts ignore
 * await announceAudit({ checkpoint, proverPub, chain, round: "123", k: "50", keys, out });
 * ```
 */
export async function announceAudit(o: AnnounceOptions): Promise<Announcement> {
  const round = _int(o.round, "--round");
  const k = _int(o.k, "--k");
  const keys = await loadSigningKeys(o.keys);
  const note = await readTextFile(o.checkpoint, { maxBytes: 64 * 1024 });
  const pub = await loadPublicKey(o.proverPub, { option: "--prover-pub" });
  refuseProverKey(
    [{ publicKey: pub, from: `--prover-pub ${quoteForTerminal(o.proverPub)}` }],
    keysInUse(keys.map((key) => key.publicKey), { option: "--key", paths: o.keys }),
  );
  const v = await verifyCheckpoint(note, [pub]);
  if (!v.verified) {
    throw new InputError(
      "CHECKPOINT_SIGNATURE",
      `Cannot announce: '${o.checkpoint}' has no valid signature by the prover key (${v.reason})`,
    );
  }
  // The audit and check refuse a checkpoint without its signing time, and the announcement's
  // date check needs it: announcing such a checkpoint would commit to an audit the prover could
  // still date (or refuse) after seeing the round.
  if (v.signedAt === undefined) {
    throw new InputError(
      "CHECKPOINT_SIGNATURE",
      `Cannot announce: '${o.checkpoint}' has no timestamped cosignature by the prover key`,
    );
  }
  // The audit will sample k of the checkpoint's records: more cannot be drawn (the audit would
  // refuse the announcement's k only when the round has come).
  if (k > v.checkpoint.treeSize) {
    throw new InputError(
      "AUDIT_K",
      `Cannot announce: k = ${k} exceeds the checkpoint's ${
        countNoun(v.checkpoint.treeSize, "record")
      }`,
    );
  }
  const info = parseDrandChainInfo(await readTextFile(o.chain, { maxBytes: 64 * 1024 }));
  const chainHash = drandChainHash(info);
  if (chainHash !== info.hash) {
    throw new InputError("BAD_BEACON", `Cannot announce: '${o.chain}' does not hash to its chain`);
  }
  // A round so far ahead that its time is not a date (or not a number) is a bad flag, not a bug.
  let roundTime: number;
  try {
    roundTime = drandRoundTime(info, round) * 1000;
  } catch {
    roundTime = Number.NaN;
  }
  if (!(Math.abs(roundTime) <= MAX_DATE_MS)) {
    throw new UsageError(
      "USAGE_NUMBER",
      `Cannot use --round '${o.round}': that round of the chain is not published before the year 275760`,
    );
  }
  const at = o.time === undefined ? Date.now() : parseRfc3339(o.time);
  if (roundTime <= at) {
    throw new InputError(
      "ANNOUNCEMENT_LATE",
      `Cannot announce round ${round}: it is published at ${
        _iso(roundTime)
      }, not after the announcement (${_iso(at)}); an announcement must precede its round: ` +
        "name a later round, or, to replay a past round (as the demo does), give --time before " +
        "the round's time",
    );
  }
  // The announcement names the checkpoint: it cannot be made before the checkpoint was signed,
  // beyond the clock skew (check fails such an attestation's announcement).
  if (datedBeforeCheckpoint(at, v.signedAt * 1000)) {
    throw new InputError(
      "ANNOUNCEMENT_MISMATCH",
      `Cannot announce at ${_iso(at)}: the checkpoint '${o.checkpoint}' was signed later (${
        _iso(v.signedAt * 1000)
      }), and an announcement cannot name a checkpoint signed after it (give a --time from then)`,
    );
  }
  // The body (origin, size, root), not the signatures: re-signing must not change the audit id.
  const bodySha256 = bytesToHex(sha256(new TextEncoder().encode(parseSignedNote(note).text)));
  const a: Announcement = {
    auditId: announcedAuditId({ bodySha256, chainHash, round }),
    checkpoint: {
      origin: v.checkpoint.origin,
      treeSize: v.checkpoint.treeSize,
      rootHash: bytesToHex(v.checkpoint.rootHash),
      bodySha256,
    },
    k,
    beacon: { chainHash, round, roundTime: _iso(roundTime) },
    announcedAt: _iso(at),
  };
  const env = await signEnvelope(encodeStatement(announcementStatement(a)), {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    keys,
  });
  await writeNewFile(o.out, JSON.stringify(env, null, 2) + "\n");
  return a;
}

function _iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.000Z$/, "Z");
}

function _int(text: string, flag: string): number {
  const v = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(v) || v < 1) {
    throw new UsageError("USAGE_NUMBER", `Cannot use ${flag} '${text}': expected an integer >= 1`);
  }
  return v;
}
