/**
 * Opening a connection to a NATS server. The connection is held behind an opaque handle, so the
 * pool's public functions name no types of the NATS client library.
 *
 * @module
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { InputError } from "../errors.ts";

/** An open connection to a NATS server, made by {@link connectNats}. */
export interface NatsLink {
  /** The server it is connected to (`host:port`). */
  readonly server: string;
  /** Closes the connection. */
  close(): Promise<void>;
}

const OPEN = new WeakMap<NatsLink, NatsConnection>();

/**
 * Connects to a NATS server.
 *
 * @param server `host:port` of the server
 * @param name client name shown by the server
 * @returns the open connection
 * @throws {InputError} `NATS_CONNECT` when the server cannot be reached
 * @example
 * ```ts ignore
 * const link = await connectNats("127.0.0.1:4222", "bitaudit-worker");
 * await link.close();
 * ```
 */
export async function connectNats(server: string, name: string): Promise<NatsLink> {
  let nc: NatsConnection;
  try {
    nc = await connect({ servers: server, name, maxReconnectAttempts: 10 });
  } catch (e) {
    throw new InputError(
      "NATS_CONNECT",
      `Cannot connect to NATS at ${server}: ${(e as Error).message.split("\n")[0]}`,
    );
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
