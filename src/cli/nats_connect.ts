/**
 * Connecting to the NATS server named by `--nats`, with a one-line coded error when it cannot be
 * reached.
 *
 * @module
 */
import { connectNats, type NatsLink } from "../pool/mod.ts";
import { natsFlag } from "./nats_flag.ts";

/**
 * Connects.
 *
 * @param url the `--nats` flag
 * @param name client name shown by the server
 * @returns the connection
 * @throws {UsageError} `USAGE_NATS`
 * @throws {InputError} `NATS_CONNECT`
 * @example
 * ```ts ignore
 * const nc = await natsConnect("nats://127.0.0.1:4222", "bitaudit-worker");
 * ```
 */
export async function natsConnect(url: string, name: string): Promise<NatsLink> {
  const server = natsFlag(url);
  return await connectNats(server, name);
}
