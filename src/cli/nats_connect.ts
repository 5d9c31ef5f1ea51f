/**
 * Connecting to the NATS server named by `--nats`, with the credentials and TLS files the
 * `--nats-*` options name, each read and checked before any connection; a one-line coded error
 * when a file is wrong or the server cannot be reached.
 *
 * @module
 */
import { connectNats, type NatsAccess, type NatsLink } from "../pool/mod.ts";
import { InputError } from "../errors.ts";
import { quoteForTerminal } from "../escape_text.ts";
import { natsFlag } from "./nats_flag.ts";
import { checkSigningKeyFiles } from "./load_inputs.ts";
import { readTextFile } from "./read_json_file.ts";
import { createPrivateKey, type KeyObject, X509Certificate } from "node:crypto";

/** The `--nats` options of `worker` and `audit serve`. */
export interface NatsFlags {
  /** `nats://host:port` (TLS when the server offers it) or `tls://host:port` (TLS required). */
  readonly nats: string;
  /** NATS user credentials: a `.creds` file or a user NKey seed. */
  readonly natsCreds?: string | undefined;
  /** CA certificates (PEM) for the server's TLS certificate; TLS then required. */
  readonly natsCa?: string | undefined;
  /** Client certificate (PEM) for TLS client authentication; TLS then required. */
  readonly natsCert?: string | undefined;
  /** The client certificate's private key (PEM). */
  readonly natsCertKey?: string | undefined;
}

/** Commander arguments of the `--nats-*` options, in the order they are listed. */
export const NATS_ACCESS_OPTIONS = [
  [
    "--nats-creds <file>",
    "NATS user credentials: a .creds file (user JWT and NKey seed) or a user NKey seed (SU...)",
  ],
  ["--nats-ca <file>", "CA certificates (PEM) the server's TLS certificate must chain to"],
  ["--nats-cert <file>", "client certificate (PEM) for servers that verify TLS clients"],
  ["--nats-cert-key <file>", "the client certificate's private key (PEM, mode 600)"],
] as const;

/** Largest credentials or PEM file read. */
const MAX_ACCESS_FILE_BYTES = 64 * 1024;
const CREDS_JWT =
  /-----BEGIN NATS USER JWT-----\r?\n\s*([A-Za-z0-9_=.-]+)\s*\r?\n-*\s*END NATS USER JWT/;
const CREDS_SEED =
  /-----BEGIN USER NKEY SEED-----\r?\n\s*(SU[A-Z2-7]{56})\s*\r?\n-*\s*END USER NKEY SEED/;
const BARE_SEED = /^\s*(SU[A-Z2-7]{56})\s*$/;

/**
 * Reads the `--nats-*` files and connects.
 *
 * @param flags the command's options
 * @param name client name shown by the server
 * @returns the connection
 * @throws {UsageError} `USAGE_NATS` for a malformed URL
 * @throws {InputError} `INPUT_*`, `KEY_PERMISSIONS`, `BAD_NATS_ACCESS`, `NATS_CONNECT`
 * @example
 * ```ts ignore
 * const nc = await natsConnect({ nats: "tls://nats.example:4222" }, "bitaudit-worker");
 * ```
 */
export async function natsConnect(flags: NatsFlags, name: string): Promise<NatsLink> {
  const { server, tls } = natsFlag(flags.nats);
  return await connectNats(server, name, await readNatsAccess(flags, { tls }));
}

/**
 * Reads and checks the credentials and TLS files of the `--nats-*` options.
 *
 * @param flags the command's options
 * @param options `tls`: TLS required even without a TLS file (`tls://`)
 * @returns what the connection needs
 * @throws {InputError} `INPUT_*`, `KEY_PERMISSIONS` (a secret group or others may read),
 *   `BAD_NATS_ACCESS` (a file that is not what its option takes, or a certificate without its
 *   key)
 * @example
 * ```ts ignore
 * const access = await readNatsAccess({ nats: "x", natsCa: "ca.pem" }, { tls: false });
 * ```
 */
export async function readNatsAccess(
  flags: NatsFlags,
  options: { tls: boolean },
): Promise<NatsAccess> {
  if ((flags.natsCert === undefined) !== (flags.natsCertKey === undefined)) {
    throw new InputError(
      "BAD_NATS_ACCESS",
      "Cannot use --nats-cert and --nats-cert-key apart: give both or neither",
    );
  }
  const access: { -readonly [K in keyof NatsAccess]: NatsAccess[K] } = {};
  if (flags.natsCreds !== undefined) {
    const text = await _secret(flags.natsCreds, "--nats-creds");
    const jwt = CREDS_JWT.exec(text)?.[1];
    const seed = jwt === undefined ? BARE_SEED.exec(text)?.[1] : CREDS_SEED.exec(text)?.[1];
    if (seed === undefined || (jwt !== undefined && jwt.split(".").length !== 3)) {
      throw _bad(
        flags.natsCreds,
        "--nats-creds",
        "neither a NATS .creds file (user JWT and NKey seed) nor a user NKey seed (SU...)",
      );
    }
    access.user = jwt === undefined ? { seed } : { seed, jwt };
  }
  const tls: { ca?: string; cert?: string; key?: string } = {};
  if (flags.natsCa !== undefined) tls.ca = (await _certificates(flags.natsCa, "--nats-ca")).text;
  if (flags.natsCert !== undefined && flags.natsCertKey !== undefined) {
    const cert = await _certificates(flags.natsCert, "--nats-cert");
    const text = await _secret(flags.natsCertKey, "--nats-cert-key");
    let key: KeyObject;
    try {
      key = createPrivateKey(text);
    } catch {
      throw _bad(flags.natsCertKey, "--nats-cert-key", "not a PEM private key");
    }
    if (!cert.first.checkPrivateKey(key)) {
      throw _bad(
        flags.natsCertKey,
        "--nats-cert-key",
        "not the key of the --nats-cert certificate",
      );
    }
    tls.cert = cert.text;
    tls.key = text;
  }
  if (options.tls || Object.keys(tls).length > 0) access.tls = tls;
  return access;
}

/** A file holding a secret: owner-only, as a signing key must be, then read bounded. */
async function _secret(path: string, option: string): Promise<string> {
  await checkSigningKeyFiles([path], { option });
  return await readTextFile(path, { maxBytes: MAX_ACCESS_FILE_BYTES });
}

/** A PEM file of certificates, each of which must parse (the first is the client's own). */
async function _certificates(
  path: string,
  flag: string,
): Promise<{ text: string; first: X509Certificate }> {
  const text = await readTextFile(path, { maxBytes: MAX_ACCESS_FILE_BYTES });
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw _bad(path, flag, "no PEM CERTIFICATE in it");
  const parsed = blocks.map((pem, i) => {
    try {
      return new X509Certificate(pem);
    } catch {
      throw _bad(path, flag, `certificate ${i + 1} of ${blocks.length} does not parse`);
    }
  });
  return { text, first: parsed[0]! };
}

function _bad(path: string, flag: string, why: string): InputError {
  return new InputError("BAD_NATS_ACCESS", `Cannot use ${flag} ${quoteForTerminal(path)}: ${why}`);
}
