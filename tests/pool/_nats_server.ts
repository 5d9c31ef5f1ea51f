/** Starts a private nats-server (JetStream, temporary store) on 127.0.0.1 and a free port. */
import { tempDir } from "../_temp.ts";
import { REPO_ROOT } from "../cli/_run.ts";

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
 * @param o `jetstream: false` starts it without JetStream (a plain NATS server)
 */
export async function startNatsServer(
  config?: string,
  o: { readonly jetstream?: boolean } = {},
): Promise<NatsServer> {
  const store = await tempDir({ prefix: "bitaudit-nats-" });
  const extra: string[] = [];
  await Deno.mkdir(`${store}/js`);
  if (config !== undefined) {
    await Deno.writeTextFile(`${store}/server.conf`, config);
    extra.push("-c", `${store}/server.conf`);
  }
  const child = new Deno.Command("nats-server", {
    args: [
      ...extra,
      ...["-a", "127.0.0.1", "-p", "-1"],
      ...(o.jetstream === false ? [] : ["-js", "-sd", `${store}/js`]),
    ],
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

/**
 * Runs one of the pool tests' client scripts (`tests/pool/<script>`) against a server, with
 * network access to that server only and read access to the repository (and `read`), and
 * asserts it exited 0.
 *
 * @param server the server
 * @param script the script's file name in tests/pool
 * @param o the script's arguments after the server URL, and more paths it may read
 * @returns its standard output
 */
export async function runPoolClient(
  server: NatsServer,
  script: string,
  o: { readonly args?: readonly string[]; readonly read?: readonly string[] } = {},
): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      `--allow-net=${server.hostPort}`,
      `--allow-read=${[REPO_ROOT, ...(o.read ?? [])].join(",")}`,
      `${REPO_ROOT}/tests/pool/${script}`,
      server.url,
      ...(o.args ?? []),
    ],
    cwd: REPO_ROOT,
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  if (out.code !== 0) throw new Error(`${script} exited ${out.code}: ${text(out.stderr)}`);
  return text(out.stdout);
}
