/**
 * `bitaudit claims checkpoint|consistency`: the prover's signed C2SP checkpoint of its claim log,
 * and RFC 9162 consistency proofs between two checkpoints of the same log.
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";
import {
  encodeBase64,
  parseRfc3339,
  parseSignedNote,
  signCheckpoint,
  verifyCheckpoint,
} from "../../attest/mod.ts";
import {
  type Checkpoint,
  consistencyProof,
  hexToBytes,
  merkleRoot,
  parseCheckpoint,
  SIGNED_ORIGIN_PATTERN,
  verifyConsistency,
} from "../../claims/mod.ts";
import { InputError } from "../../errors.ts";
import { EXIT } from "../exit_codes.ts";
import { loadClaimLog, loadPublicKey, loadSigningKey } from "../load_inputs.ts";
import { printJson, printText } from "../output.ts";
import { readTextFile } from "../read_json_file.ts";
import { writeNewFile } from "../write_new_file.ts";
import { timeFlag } from "../plan_inputs.ts";
import { countNoun } from "../count_noun.ts";

/**
 * Adds `checkpoint` and `consistency` to the `claims` command group.
 *
 * @param cmd the `claims` command
 * @example
 * ```ts
 * import { Command } from "@commander-js/extra-typings";
 * import { addCheckpointCommands } from "./claims_checkpoint.ts";
 * const cmd = new Command("claims");
 * addCheckpointCommands(cmd);
 * if (cmd.commands.length !== 2) throw new Error();
 * ```
 */
export function addCheckpointCommands(cmd: Command): void {
  cmd.command("checkpoint")
    .description("sign a C2SP tlog-checkpoint of a claim log with the prover key (signed note)")
    .requiredOption("--log <file>", "claims.jsonl")
    .requiredOption("--key <file>", "prover private key (PKCS#8 PEM)")
    .requiredOption("--origin <name>", "log identity, e.g. bitaudit.example/prover-1/log")
    .requiredOption("--out <file>", "signed checkpoint to write (never overwritten)")
    .option("--time <rfc3339>", "signing time stated in the cosignature (default: now)")
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      if (!SIGNED_ORIGIN_PATTERN.test(opts.origin)) {
        throw new InputError(
          "USAGE",
          "Cannot sign checkpoint: --origin must be 1 to 256 printable ASCII characters, " +
            "without spaces or '+' (e.g. bitaudit.example/prover-1/log)",
        );
      }
      // As every --time: UTC to the second, not in the future (announce and audit refuse a
      // checkpoint signed after their own time).
      const time = timeFlag(
        opts.time,
        new Date(),
        "announce and audit refuse a checkpoint signed after their own time",
      );
      const log = await loadClaimLog(opts.log);
      const key = await loadSigningKey(opts.key);
      const cp: Checkpoint = {
        origin: opts.origin,
        treeSize: log.records.length,
        rootHash: hexToBytes(log.root),
        extensions: [],
      };
      let note: string;
      try {
        note = await signCheckpoint(cp, {
          privateKey: key.privateKey,
          time: Math.floor((time === undefined ? Date.now() : parseRfc3339(time)) / 1000),
        });
      } catch (e) {
        if (e instanceof RangeError) {
          throw new InputError("BAD_CHECKPOINT", `Cannot sign checkpoint: ${e.message}`);
        }
        throw e;
      }
      await writeNewFile(opts.out, new TextEncoder().encode(note));
      const summary = { out: opts.out, origin: cp.origin, treeSize: cp.treeSize, root: log.root };
      if (opts.json) printJson(summary);
      else printText(`wrote ${opts.out}: ${countNoun(cp.treeSize, "record")}, root ${log.root}`);
    });
  cmd.command("consistency")
    .description("prove (RFC 9162 §2.1.4) that the log of --new extends the log of --old")
    .requiredOption("--old <file>", "older signed checkpoint")
    .requiredOption("--new <file>", "newer signed checkpoint")
    .requiredOption("--log <file>", "claims.jsonl holding at least the newer tree")
    .option("--pub <files...>", "prover public key(s) (SPKI PEM) to verify both signatures")
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const keys = await Promise.all(
        (opts.pub ?? []).map((p) => loadPublicKey(p, { option: "--pub" })),
      );
      const older = await _readCheckpoint(opts.old, keys);
      const newer = await _readCheckpoint(opts.new, keys);
      const result = await _consistency(older, newer, opts.log);
      if (opts.json) printJson({ ...result, signaturesChecked: keys.length > 0 });
      else {
        printText(
          `${result.consistent ? "consistent" : "NOT consistent"}: ${result.origin} ` +
            `${result.oldSize} -> ${result.newSize} (${result.proof.length} proof hashes)` +
            (keys.length > 0 ? "" : "; signatures not checked (no --pub)"),
        );
        if (result.reason !== undefined) printText(`reason: ${result.reason}`);
      }
      Deno.exitCode = result.consistent ? EXIT.OK : EXIT.FAIL;
    });
}

async function _readCheckpoint(path: string, keys: readonly Uint8Array[]): Promise<Checkpoint> {
  const text = await readTextFile(path, { maxBytes: 64 * 1024 });
  if (keys.length === 0) return parseCheckpoint(parseSignedNote(text).text);
  const v = await verifyCheckpoint(text, keys);
  if (!v.verified) {
    throw new InputError(
      "CHECKPOINT_SIGNATURE",
      `Cannot use checkpoint '${path}': no valid signature by the given prover key (${v.reason})`,
    );
  }
  return v.checkpoint;
}

async function _consistency(older: Checkpoint, newer: Checkpoint, logPath: string) {
  const base = { origin: newer.origin, oldSize: older.treeSize, newSize: newer.treeSize };
  const fail = (reason: string) => ({ ...base, consistent: false, proof: [], reason });
  if (older.origin !== newer.origin) {
    // Two logs' checkpoints: no proof relates them, and "NOT consistent" would call it a fork.
    throw new InputError(
      "CHECKPOINT_MISMATCH",
      `Cannot prove consistency: the checkpoints name different logs (origin ${
        JSON.stringify(older.origin)
      } of --old, ${JSON.stringify(newer.origin)} of --new)`,
    );
  }
  if (older.treeSize > newer.treeSize) return fail("the old checkpoint is larger than the new one");
  if (older.treeSize === 0 && !_sameBytes(older.rootHash, merkleRoot([]))) {
    // RFC 9162 §2.1.1: the tree of no leaves has one root, SHA-256 of the empty string.
    return fail("the old checkpoint has tree size 0 but not the empty tree's root");
  }
  const log = await loadClaimLog(logPath);
  if (log.records.length < newer.treeSize) {
    throw new InputError(
      "LOG_TOO_SHORT",
      `Cannot prove consistency: the log has ${
        countNoun(log.records.length, "record")
      }, the new checkpoint ${newer.treeSize}`,
    );
  }
  const leaves = log.digests.slice(0, newer.treeSize).map(hexToBytes);
  // The proof is built from this log: it must be the log the new checkpoint signed, else a
  // failed proof would say the prover forked its log when the inspector gave another file.
  if (!_sameBytes(merkleRoot(leaves), newer.rootHash)) {
    throw new InputError(
      "CHECKPOINT_MISMATCH",
      `Cannot prove consistency: the first ${newer.treeSize} records of '${logPath}' do not ` +
        "have the new checkpoint's root (another log)",
    );
  }
  const proof = consistencyProof(leaves, older.treeSize);
  const consistent = verifyConsistency({
    oldSize: older.treeSize,
    newSize: newer.treeSize,
    oldRoot: older.rootHash,
    newRoot: newer.rootHash,
    proof,
  });
  return {
    ...base,
    consistent,
    proof: proof.map(encodeBase64),
    ...(consistent ? {} : { reason: "the roots are not those of one growing log" }),
  };
}

function _sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
