/**
 * The `--nats` flag: one NATS server as `nats://host:port`, `tls://host:port` (TLS required) or
 * `host:port`, checked before any connection so that the process can run with network access to
 * that server only.
 *
 * @module
 */
import { UsageError } from "../errors.ts";

/**
 * Parses `--nats`.
 *
 * @param text the flag's value
 * @returns `server`: `host:port` (port 4222 when none is given); `tls`: the `tls://` scheme
 * @throws {UsageError} `USAGE_NATS`
 * @example
 * ```ts
 * import { natsFlag } from "./nats_flag.ts";
 * if (natsFlag("nats://127.0.0.1:4333").server !== "127.0.0.1:4333") throw new Error();
 * if (!natsFlag("tls://nats.example").tls) throw new Error();
 * ```
 */
export function natsFlag(text: string): { server: string; tls: boolean } {
  const m = /^(?:(nats|tls):\/\/)?([A-Za-z0-9.-]{1,253}|\[[0-9a-fA-F:]{2,39}\])(?::(\d{1,5}))?$/
    .exec(text);
  const port = Number(m?.[3] ?? "4222");
  if (m === null || port < 1 || port > 65535) {
    throw new UsageError(
      "USAGE_NATS",
      `Cannot use --nats '${
        text.replace(/[^\x20-\x7e]/g, "?").slice(0, 64)
      }': expected nats://host:port or tls://host:port`,
    );
  }
  return { server: `${m[2]}:${port}`, tls: m[1] === "tls" };
}
