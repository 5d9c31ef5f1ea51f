/** Starts a private nats-server (JetStream, temporary store) on 127.0.0.1 and a free port. */
import { tempDir } from "../_temp.ts";

/** A running server. */
export interface NatsServer {
  /** `nats://127.0.0.1:<port>`. */
  url: string;
  /** `127.0.0.1:<port>` (for `--allow-net`). */
  hostPort: string;
  /** Stops the server and removes its store. */
  stop(): Promise<void>;
}

/**
 * Starts the server (port chosen by the server: -1) and waits until it is ready. Its store is
 * removed by `stop`, or when the test module ends if a failed test never stopped it.
 *
 * @param config extra server configuration (nats-server's config syntax: `tls {...}`,
 *   `authorization {...}`), written to a file beside the store
 */
export async function startNatsServer(config?: string): Promise<NatsServer> {
  const store = await tempDir({ prefix: "bitaudit-nats-" });
  const extra: string[] = [];
  await Deno.mkdir(`${store}/js`);
  if (config !== undefined) {
    await Deno.writeTextFile(`${store}/server.conf`, config);
    extra.push("-c", `${store}/server.conf`);
  }
  const child = new Deno.Command("nats-server", {
    args: [...extra, "-a", "127.0.0.1", "-p", "-1", "-js", "-sd", `${store}/js`],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let log = "";
  const deadline = setTimeout(() => child.kill("SIGKILL"), 15_000);
  while (!log.includes("Server is ready")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`nats-server did not start: ${log}`);
    log += value;
  }
  clearTimeout(deadline);
  const port = /Listening for client connections on 127\.0\.0\.1:(\d+)/.exec(log)?.[1];
  if (port === undefined) throw new Error(`nats-server did not say its port: ${log}`);
  const drain = (async () => {
    while (!(await reader.read()).done) { /* keep the pipe flowing */ }
  })();
  return {
    url: `nats://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    stop: async () => {
      child.kill("SIGTERM");
      await child.status;
      await drain;
      await Deno.remove(store, { recursive: true });
    },
  };
}
