/**
 * Connecting to the NATS server named by `--nats`, with a one-line coded error when it cannot be
 * reached.
 *
 * @module
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { InputError } from "../errors.ts";
import { natsFlag } from "./nats_flag.ts";

/**
 * Connects.
 *
 * @param url the `--nats` flag
 * @param name client name shown by the server
 * @returns the connection
 * @throws {InputError} `USAGE_NATS`, `NATS_CONNECT`
 * @example
 * ```ts ignore
 * const nc = await natsConnect("nats://127.0.0.1:4222", "bitaudit-worker");
 * ```
 */
export async function natsConnect(url: string, name: string): Promise<NatsConnection> {
  const server = natsFlag(url);
  try {
    return await connect({ servers: server, name, maxReconnectAttempts: 10 });
  } catch (e) {
    throw new InputError(
      "NATS_CONNECT",
      `Cannot connect to NATS at ${server}: ${(e as Error).message.split("\n")[0]}`,
    );
  }
}
