/**
 * `bitaudit key generate|trust-root`: inspector keys and trust roots.
 *
 * @module
 */
import { normalize } from "node:path";
import { Command } from "@commander-js/extra-typings";
import {
  buildTrustRoot,
  decodePem,
  drandChainHash,
  encodePrivateKeyPem,
  encodePublicKeyPem,
  generateKeyPair,
  keyId,
  MAX_TRUST_ROOT_KEYS,
  parseDrandChainInfo,
  parseRfc3339,
  parseTrustRoot,
  trustedDrandChains,
  trustedTsaAnchors,
} from "../../attest/mod.ts";
import { SIGNED_ORIGIN_PATTERN } from "../../claims/mod.ts";
import { InputError, UsageError } from "../../errors.ts";
import { quoteForTerminal, quoteShort } from "../../escape_text.ts";
import { printJson, printText } from "../output.ts";
import { readTextFile } from "../read_json_file.ts";
import { loadPublicKey } from "../load_inputs.ts";
import { refuseExisting, writeNewFile } from "../write_new_file.ts";
import { removeOnInterrupt } from "../cleanup.ts";
import { addCommandHelp } from "../command_help.ts";
import { extendTrustRoot, keyTimeArgs } from "../extend_trust_root.ts";
import { keysInUse, refuseRepeatedKeys } from "../refuse_prover_key.ts";

/**
 * Builds the `key` command group.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { keyCommand } from "./key.ts";
 * if (keyCommand().name() !== "key") throw new Error();
 * ```
 */
export function keyCommand(): Command {
  const cmd = new Command("key").description("inspector signing keys and trust roots");
  cmd.command("generate")
    .description(
      "create <name>.key (PKCS#8 PEM, mode 0600) and <name>.pub (SPKI PEM); never overwrites",
    )
    .requiredOption("--out <name>", "path prefix of the two files")
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const r = await generateKeys(opts.out);
      if (opts.json) printJson(r);
      else {
        printText(`wrote ${r.privateKey} and ${r.publicKey}`);
        printText(`keyid ${r.keyid}`);
      }
    });
  const trustRoot = cmd.command("trust-root")
    .description(
      "write a trust root listing inspector public keys with a validity window; with --extend, a " +
        "new root from an existing one (rotation: --end a key's window, add the next key; " +
        "compromise: --revoke)",
    )
    .option("--pub <files...>", "SPKI PEM public keys (required unless --extend)")
    .requiredOption("--out <file>", "trust root JSON to create")
    .option(
      "--extend <file>",
      "an existing trust root to start from: every key (with its window and revocation), drand " +
        "chain and TSA it lists is kept, the keys given here are added",
    )
    .option(
      "--end <keyid=time...>",
      "with --extend: end a listed key's validity at the time (rotation); keyid or its first 8+ " +
        "hex digits",
    )
    .option(
      "--revoke <keyid=time...>",
      "with --extend: revoke a listed key from the time (compromise: no signature it made from " +
        "then on counts)",
    )
    .option("--revoke-reason <text>", "why the --revoke keys are revoked (kept in the root)")
    .option(
      "--valid-from <time>",
      "RFC 3339 start of validity: a signature made earlier does not count",
      DEFAULT_VALID_FROM,
    )
    .option("--valid-until <time>", "RFC 3339 end of validity (default: none)")
    .option("--prover <files...>", "prover SPKI PEM public keys (role prover: checkpoints)")
    .option(
      "--prover-valid-from <time>",
      "RFC 3339 start of the prover keys' validity, no later than their checkpoints' signing time (default: --valid-from)",
    )
    .option(
      "--prover-origin <name>",
      "the one log origin the --prover keys may sign checkpoints of (default: any origin)",
    )
    .option("--drand <files...>", "drand chain info JSON files whose chains are trusted")
    .option(
      "--tsa <files...>",
      "PEM certificates of trusted RFC 3161 time-stamp authorities: their CA, or a TSA's own (for tokens that carry no certificate)",
    )
    .action(async (opts) => {
      if (opts.extend === undefined && opts.pub === undefined) {
        throw new InputError("USAGE", "Cannot write a trust root: give --pub (or --extend)");
      }
      if (opts.extend === undefined && (opts.end ?? opts.revoke) !== undefined) {
        throw new InputError("USAGE", "Cannot apply --end or --revoke without --extend <root>");
      }
      // Window flags set the windows of the keys they go with: with none of those keys they
      // would change nothing, silently.
      for (
        const [flag, value] of [["--prover-valid-from", opts.proverValidFrom], [
          "--prover-origin",
          opts.proverOrigin,
        ]] as const
      ) {
        if (value !== undefined && opts.prover === undefined) {
          throw new InputError("USAGE", `Cannot use ${flag} without --prover keys`);
        }
      }
      if (opts.proverOrigin !== undefined && !SIGNED_ORIGIN_PATTERN.test(opts.proverOrigin)) {
        throw new InputError(
          "USAGE",
          "Cannot build trust root: --prover-origin must be 1 to 256 printable ASCII characters, " +
            "without spaces or '+' (the origin given to claims checkpoint)",
        );
      }
      const inspectorWindow = (["validFrom", "validUntil"] as const).some((k) =>
        trustRoot.getOptionValueSource(k) === "cli"
      );
      if (opts.pub === undefined && opts.extend !== undefined && opts.validUntil !== undefined) {
        throw new InputError(
          "USAGE",
          "Cannot use --valid-until without --pub: it ends the inspector keys added (a prover " +
            "key has no end; use --end for a listed inspector key)",
        );
      }
      if (opts.pub === undefined && opts.prover === undefined && inspectorWindow) {
        throw new InputError(
          "USAGE",
          "Cannot apply --valid-from or --valid-until with --extend and no key added: they set " +
            "the new keys' windows (use --end for a listed key)",
        );
      }
      if (opts.revokeReason !== undefined && opts.revoke === undefined) {
        throw new InputError("USAGE", "Cannot use --revoke-reason without --revoke");
      }
      // Each window flag is read as a time here, where its flag can be named (an empty
      // --valid-until had set no end at all, and a bad --valid-from was blamed on the root).
      for (
        const [flag, value] of [
          ["--valid-from", opts.validFrom],
          ["--valid-until", opts.validUntil],
          ["--prover-valid-from", opts.proverValidFrom],
        ] as const
      ) {
        if (value !== undefined) _windowTime(flag, value);
      }
      const end = keyTimeArgs(opts.end ?? [], "--end");
      const revoke = keyTimeArgs(opts.revoke ?? [], "--revoke");
      const pubs = [];
      for (const file of opts.pub ?? []) pubs.push(await loadPublicKey(file, { option: "--pub" }));
      const provers = [];
      for (const file of opts.prover ?? []) {
        provers.push(await loadPublicKey(file, { option: "--prover" }));
      }
      refuseRepeatedKeys([
        ...keysInUse(pubs, { option: "--pub", paths: opts.pub ?? [] }),
        ...keysInUse(provers, { option: "--prover", paths: opts.prover ?? [] }),
      ]);
      const drand = [];
      for (const file of opts.drand ?? []) {
        const info = parseDrandChainInfo(await readTextFile(file, { maxBytes: 64 * 1024 }));
        if (drandChainHash(info) !== info.hash) {
          throw new InputError("BAD_BEACON", `Cannot pin '${file}': its chain hash does not match`);
        }
        drand.push({ chainHash: info.hash, beaconId: info.beaconId });
      }
      const tsa = [];
      for (const file of opts.tsa ?? []) {
        const what = `certificate ${quoteForTerminal(file)} (--tsa)`;
        const pem = await readTextFile(file, { maxBytes: 64 * 1024, what });
        const certificate = decodePem(pem, "CERTIFICATE", { what });
        tsa.push({ certificate, name: file.replace(/^.*\//, "") });
      }
      const keys = pubs.length + provers.length;
      if (keys > MAX_TRUST_ROOT_KEYS) {
        throw new UsageError(
          "USAGE_TRUST",
          `Cannot build trust root: ${keys} keys (--pub and --prover), at most ${MAX_TRUST_ROOT_KEYS}`,
        );
      }
      const root = buildTrustRoot(pubs, {
        start: opts.validFrom,
        ...(opts.validUntil === undefined ? {} : { end: opts.validUntil }),
        ...(provers.length === 0 ? {} : {
          provers: {
            keys: provers,
            start: opts.proverValidFrom ?? opts.validFrom,
            ...(opts.proverOrigin === undefined ? {} : { origin: opts.proverOrigin }),
          },
        }),
        drand,
        tsa,
      });
      const doc = opts.extend === undefined ? root : extendTrustRoot(
        await readTextFile(opts.extend, { maxBytes: 16 * 1024 * 1024 }),
        root,
        { end, revoke, ...(opts.revokeReason === undefined ? {} : { reason: opts.revokeReason }) },
      );
      if (doc.keys.length > MAX_TRUST_ROOT_KEYS) {
        throw new UsageError(
          "USAGE_TRUST",
          `Cannot extend the trust root: it would list ${doc.keys.length} keys, at most ${MAX_TRUST_ROOT_KEYS}`,
        );
      }
      const text = JSON.stringify(doc, null, 2) + "\n";
      // Validated as `check` will read it: a root that check would refuse is never written
      // (a time that is not RFC 3339, an end before the start, the same key twice).
      const parsed = parseTrustRoot(text);
      trustedDrandChains(parsed.drand); // the pinned chains and TSA certificates, as check reads them
      trustedTsaAnchors(parsed.tsa);
      await writeNewFile(opts.out, text);
      printText(`wrote ${opts.out} with ${doc.keys.length} key(s)`);
      if (opts.extend !== undefined) {
        printText(`kept the ${doc.keys.length - root.keys.length} key(s) of ${opts.extend}`);
        for (const [id, t] of end) printText(`key ${id}: valid until ${t} (--end)`);
        for (const [id, t] of revoke) printText(`key ${id}: revoked from ${t} (--revoke)`);
      }
      // What a check against this root will trust besides keys: said, as the windows are.
      const chains = (doc.drand ?? []) as { chainHash: string; beaconId: string }[];
      const anchors = (doc.tsa ?? []) as { name: string }[];
      printText(
        `drand chains pinned: ${
          chains.length === 0
            ? "none (no beacon round verifies; give --drand)"
            : chains.map((c) => `${c.beaconId} (${c.chainHash.slice(0, 16)}…)`).join(", ")
        }`,
      );
      printText(
        `time-stamp authorities pinned: ${
          anchors.length === 0
            ? "none (no RFC 3161 token verifies; give --tsa)"
            : anchors.map((t) => t.name).join(", ")
        }`,
      );
      const defaulted = trustRoot.getOptionValueSource("validFrom") === "default";
      if (pubs.length + provers.length > 0) {
        for (const line of _windowLines(opts, { provers: provers.length, defaulted })) {
          printText(line);
        }
      }
    });
  return addCommandHelp(cmd);
}

/** Refuses a window flag that is not an RFC 3339 time, naming the flag. */
function _windowTime(flag: string, value: string): void {
  try {
    parseRfc3339(value);
  } catch {
    throw new UsageError(
      "USAGE_TIME",
      `Cannot use ${flag} ${
        quoteShort(value)
      }: expected an RFC 3339 time (e.g. 2026-05-01T00:00:00Z)`,
    );
  }
}

/** `--valid-from` when none is given. */
const DEFAULT_VALID_FROM = "2026-01-01T00:00:00Z";

/**
 * The validity windows just written, each with the flag that sets it and whether it is a default:
 * a window that starts after a key's signatures makes `check` refuse them, so it is never silent.
 */
function _windowLines(
  opts: {
    pub?: string[];
    validFrom: string;
    validUntil?: string;
    proverValidFrom?: string;
    proverOrigin?: string;
  },
  o: { provers: number; defaulted: boolean },
): string[] {
  const from = `from ${opts.validFrom} (${
    o.defaulted ? "the default; " : ""
  }set with --valid-from)`;
  const until = opts.validUntil === undefined
    ? "with no end (set one with --valid-until)"
    : `until ${opts.validUntil} (--valid-until)`;
  const lines = (opts.pub ?? []).length === 0
    ? []
    : [`inspector keys (${opts.pub!.length}): valid ${from} ${until}`];
  if (o.provers > 0) {
    lines.push(
      `prover keys (${o.provers}): valid from ${
        opts.proverValidFrom === undefined
          ? `${opts.validFrom} (--valid-from${
            o.defaulted ? "'s default" : ""
          }; set with --prover-valid-from)`
          : `${opts.proverValidFrom} (--prover-valid-from)`
      }; a checkpoint the prover signed earlier does not count; ${
        opts.proverOrigin === undefined
          ? "checkpoints of any origin (pin the prover's log with --prover-origin)"
          : `checkpoints of origin ${opts.proverOrigin} only (--prover-origin)`
      }`,
    );
  }
  return lines;
}

/**
 * Generates an Ed25519 key pair into `<prefix>.key` and `<prefix>.pub`.
 *
 * @param prefix path prefix
 * @param write how a new file is written (`writeNewFile`; tests hand in one that fails)
 * @returns the written paths and the key id
 * @throws {InputError} `OUTPUT_EXISTS` when either file exists (nothing is written then; nor is
 *   anything left when the second file cannot be written);
 *   `OUTPUT_WRITE` when a folder of the prefix is a file or cannot be created (missing folders
 *   are created)
 * @throws {UsageError} `USAGE_PATH` when the prefix names no file (empty, or ending in `/`, `.`
 *   or `..`): the keys would be the hidden files `.key` and `.pub` of a folder
 * @example
 * ```ts ignore
 * const { keyid } = await generateKeys("/tmp/inspector");
 * ```
 */
export async function generateKeys(
  prefix: string,
  write: typeof writeNewFile = writeNewFile,
): Promise<{ privateKey: string; publicKey: string; keyid: string }> {
  const name = prefix.slice(prefix.lastIndexOf("/") + 1);
  if (name === "" || name === "." || name === "..") {
    throw new UsageError(
      "USAGE_PATH",
      `Cannot generate keys at '${prefix}': --out must end in a file name (the keys are ` +
        "<name>.key and <name>.pub)",
    );
  }
  // Without `..` (see writeNewFile): the key removed again is the one written, never the file a
  // removal would find by resolving `lnk/..` on the file system.
  const privPath = normalize(`${prefix}.key`);
  const pubPath = normalize(`${prefix}.pub`);
  for (const p of [privPath, pubPath]) await refuseExisting(p);
  const kp = await generateKeyPair();
  // A private key without its public half is of no use and must not be left behind: taken away
  // again if the second file fails or the command is interrupted before it is written, from the
  // moment it is in place, and only while the name still holds this run's key (never one
  // another run wrote there). The key is held open meanwhile, so that its inode number, which
  // tells it apart, names no other file even if this one is removed.
  let release: ((remove: boolean) => Promise<void>) | undefined;
  let held: Deno.FsFile | undefined;
  let ok = false;
  try {
    await write(privPath, encodePrivateKeyPem(kp.privateKey), {
      mode: 0o600,
      published: (identity) => {
        release = removeOnInterrupt(privPath, { recursive: false, identity });
        try {
          held = Deno.openSync(privPath);
        } catch { /* not held: the inode number alone tells it apart */ }
      },
    });
    await write(pubPath, encodePublicKeyPem(kp.publicKey));
    ok = true;
  } finally {
    await release?.(!ok);
    held?.close();
  }
  return { privateKey: privPath, publicKey: pubPath, keyid: keyId(kp.publicKey) };
}
