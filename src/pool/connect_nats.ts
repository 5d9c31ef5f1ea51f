/**
 * Opening a connection to a NATS server. The connection is held behind an opaque handle, so the
 * pool's public functions name no types of the NATS client library.
 *
 * @module
 */
import {
  type Authenticator,
  connect,
  jwtAuthenticator,
  type NatsConnection,
  nkeyAuthenticator,
  nkeys,
  type TlsOptions,
} from "@nats-io/transport-node";
import { checkServerIdentity, type PeerCertificate } from "node:tls";
import { InputError } from "../errors.ts";

/** An open connection to a NATS server, made by {@link connectNats}. */
export interface NatsLink {
  /** The server it is connected to (`host:port`). */
  readonly server: string;
  /** Closes the connection. */
  close(): Promise<void>;
}

/**
 * How a client proves itself to the server and how the connection is protected. Without any of
 * it the client connects as the server allows anonymous clients (in TLS when the server offers
 * it, checked against the system's CAs).
 */
export interface NatsAccess {
  /**
   * A NATS user: its NKey seed (`SU...`), with the user JWT an operator issued (a `.creds` file
   * holds both) or without one (a server that lists its users by public NKey).
   */
  readonly user?: { readonly seed: string; readonly jwt?: string };
  /**
   * TLS, required when present: the server refuses no TLS, a server without it is refused. `ca`:
   * the PEM certificates the server's must chain to (default: the system's); `cert` and `key`: a
   * client certificate and its key (PEM) for servers that verify clients.
   */
  readonly tls?: { readonly ca?: string; readonly cert?: string; readonly key?: string };
}

const OPEN = new WeakMap<NatsLink, NatsConnection>();

/**
 * A TLS alert a server sends after the client's side of the handshake is done (a server that
 * verifies client certificates refusing one) reaches a socket the client library no longer
 * listens to, and Deno would report it as an uncaught error, a stack trace ending the process
 * (the connection itself times out). It is caught here and, when it arrives before the connection
 * fails, named in the error.
 */
let lastTlsAlert: string | null = null;

let alertGuard = false;

function _guardTlsAlerts(): void {
  if (alertGuard) return;
  alertGuard = true;
  globalThis.addEventListener("error", (event: ErrorEvent) => {
    // Only the TLS layer's own alert error: its message, raised from the TLS socket wrapper.
    const e = event.error;
    if (
      e instanceof Error && /^received fatal alert: \w+$/.test(e.message) &&
      /tls_wrap/.test(e.stack ?? "")
    ) {
      event.preventDefault();
      lastTlsAlert = e.message;
    }
  });
}

/**
 * Connects to a NATS server.
 *
 * @param server `host:port` of the server
 * @param name client name shown by the server
 * @param access credentials and TLS (none: anonymous)
 * @returns the open connection
 * @throws {InputError} `BAD_NATS_ACCESS` for a malformed NKey seed; `NATS_CONNECT` when the
 *   server cannot be reached, refuses the credentials, or fails the TLS checks;
 *   {Deno.errors.NotCapable} when the runtime does not grant network access
 * @example
 * ```ts ignore
 * const link = await connectNats("127.0.0.1:4222", "bitaudit-worker");
 * await link.close();
 * ```
 */
export async function connectNats(
  server: string,
  name: string,
  access: NatsAccess = {},
): Promise<NatsLink> {
  let nc: NatsConnection;
  const authenticator = access.user === undefined ? undefined : _authenticator(access.user);
  _guardTlsAlerts();
  lastTlsAlert = null;
  try {
    nc = await connect({
      servers: server,
      name,
      maxReconnectAttempts: 10,
      // The socket resolves the host itself, so `--allow-net=<host:port>` is the one grant
      // needed: the client's own look-up (node:dns) is checked against the bare host name.
      resolve: false,
      ...(authenticator === undefined ? {} : { authenticator }),
      ...(access.tls === undefined ? {} : { tls: _tls(server, access.tls) }),
    });
  } catch (e) {
    // The runtime's refusal (no --allow-net) is the caller's permission error, not the server's.
    if (e instanceof Deno.errors.NotCapable) throw e;
    if (_lookupRefused(e, server)) {
      throw new Deno.errors.NotCapable(
        `Requires net access to "${server}", run again with the --allow-net flag`,
      );
    }
    const why = lastTlsAlert === null
      ? (e as Error).message.split("\n")[0]
      : `the server ended the TLS handshake (${lastTlsAlert})`;
    throw new InputError("NATS_CONNECT", `Cannot connect to NATS at ${server}: ${why}`);
  }
  const link: NatsLink = { server, close: () => nc.close() };
  OPEN.set(link, nc);
  return link;
}

/**
 * The client connection behind a handle (inside the pool only).
 *
 * @param link a handle made by {@link connectNats}
 * @returns its connection
 * @throws {TypeError} for a handle not made by `connectNats`
 * @example
 * ```ts ignore
 * const nc = natsConnection(await connectNats("127.0.0.1:4222", "x"));
 * ```
 */
export function natsConnection(link: NatsLink): NatsConnection {
  const nc = OPEN.get(link);
  if (nc === undefined) throw new TypeError("not a connection made by connectNats");
  return nc;
}

/**
 * Whether a failed connection is the runtime refusing the host name's look-up: Deno reports a
 * look-up it was not allowed to make as the system's `getaddrinfo EPERM`, which would otherwise
 * read as the server's fault.
 */
function _lookupRefused(e: unknown, server: string): boolean {
  const { code, syscall } = e as { code?: unknown; syscall?: unknown };
  if (code !== "EPERM" || syscall !== "getaddrinfo") return false;
  try {
    return Deno.permissions.querySync({ name: "net", host: server }).state !== "granted";
  } catch {
    return true; // a host the permission API cannot name: the look-up's refusal stands
  }
}

function _authenticator(user: { seed: string; jwt?: string }): Authenticator {
  const seed = new TextEncoder().encode(user.seed);
  try {
    nkeys.fromSeed(seed);
  } catch (e) {
    throw new InputError(
      "BAD_NATS_ACCESS",
      `Cannot use the NATS user NKey seed: ${(e as Error).message.split("\n")[0]}`,
    );
  }
  return user.jwt === undefined ? nkeyAuthenticator(seed) : jwtAuthenticator(user.jwt, seed);
}

/**
 * The TLS options, with the server's certificate checked against the host `--nats` names: the
 * client library names no host for a server given by IP address, and the TLS layer then checks
 * the certificate against "localhost".
 */
function _tls(server: string, tls: NonNullable<NatsAccess["tls"]>): TlsOptions {
  const host = server.slice(0, server.lastIndexOf(":")).replace(/^\[(.*)\]$/, "$1");
  return {
    ...tls,
    checkServerIdentity: (_name: string, cert: PeerCertificate) => checkServerIdentity(host, cert),
  } as TlsOptions;
}
