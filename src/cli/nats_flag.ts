/**
 * The `--nats` flag: one NATS server as `nats://host:port` or `host:port`, checked before any
 * connection so that the process can run with network access to that server only.
 *
 * @module
 */
import { InputError } from "../errors.ts";

/**
 * Parses `--nats`.
 *
 * @param text the flag's value
 * @returns `host:port` (port 4222 when none is given)
 * @throws {InputError} `USAGE_NATS`
 * @example
 * ```ts
 * import { natsFlag } from "./nats_flag.ts";
 * if (natsFlag("nats://127.0.0.1:4333") !== "127.0.0.1:4333") throw new Error();
 * ```
 */
export function natsFlag(text: string): string {
  const m = /^(?:nats:\/\/)?([A-Za-z0-9.-]{1,253}|\[[0-9a-fA-F:]{2,39}\])(?::(\d{1,5}))?$/.exec(
    text,
  );
  const port = Number(m?.[2] ?? "4222");
  if (m === null || port < 1 || port > 65535) {
    throw new InputError(
      "USAGE_NATS",
      `Cannot use --nats '${
        text.replace(/[^\x20-\x7e]/g, "?").slice(0, 64)
      }': expected nats://host:port`,
    );
  }
  return `${m[1]}:${port}`;
}
