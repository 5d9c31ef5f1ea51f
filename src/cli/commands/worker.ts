/**
 * `bitaudit worker`: a pool worker for `audit serve`. Pulls work orders from NATS JetStream,
 * recomputes each against its own copy of the claim log and blobs, publishes the result, acks.
 * Needs network access to the NATS server only, and read access to the code, log and blobs.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { runWorker, type WorkerEvent } from "../../pool/mod.ts";
import { signItemResult } from "../../attest/mod.ts";
import { loadClaimLog, loadSigningKey } from "../load_inputs.ts";
import { NATS_ACCESS_OPTIONS, natsConnect } from "../nats_connect.ts";
import { intFlag } from "../plan_inputs.ts";
import { blobsBeside, openWorkContext } from "../work_context.ts";
import { addCommandHelp } from "../command_help.ts";
import { printText } from "../output.ts";
import { escapeForTerminal } from "../../escape_text.ts";
import { countNoun } from "../count_noun.ts";
import { refuseSignerAsWorker } from "../refuse_signer_as_worker.ts";

/**
 * Builds the `worker` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { workerCommand } from "./worker.ts";
 * if (workerCommand().name() !== "worker") throw new Error();
 * ```
 */
export function workerCommand(): Command {
  return addCommandHelp(new Command("worker"))
    .description(
      "recompute audit items served over NATS JetStream by `audit serve` (runs until stopped)",
    )
    .requiredOption(
      "--nats <url>",
      "NATS server with JetStream (nats://host:port; tls://host:port requires TLS)",
    )
    .option(...NATS_ACCESS_OPTIONS[0])
    .option(...NATS_ACCESS_OPTIONS[1])
    .option(...NATS_ACCESS_OPTIONS[2])
    .option(...NATS_ACCESS_OPTIONS[3])
    .requiredOption("--log <file>", "claims.jsonl of the audited log")
    .requiredOption(
      "--key <file>",
      "this worker's private key (PKCS#8 PEM): signs every result; never the inspector's",
    )
    .option("--blobs <dir>", "tensor blobs by sha256 (default: <log folder>/blobs)")
    .option("--threads <n>", "worker threads")
    .option("--max-idle <s>", "exit after this many seconds without an item")
    .action(async (opts) => {
      const maxIdleMs = opts.maxIdle === undefined
        ? undefined
        : intFlag(opts.maxIdle, { flag: "--max-idle", min: 1 }) * 1000;
      const key = await loadSigningKey(opts.key);
      const log = await loadClaimLog(opts.log);
      const nc = await natsConnect(opts, "bitaudit-worker");
      const { ctx, close } = await openWorkContext({
        blobs: opts.blobs ?? blobsBeside(opts.log),
        threads: opts.threads,
      });
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      for (const s of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(s, onSignal);
      try {
        const done = await runWorker(nc, {
          ctx,
          log,
          sign: (r) => signItemResult(r, key),
          signal: stop.signal,
          maxIdleMs,
          onEvent: _say,
          // A worker on the inspector's key refuses every order of that inspector's plan.
          refuse: (order) =>
            refuseSignerAsWorker(order.signers, {
              workers: [{ publicKey: key.publicKey, option: "--key", path: opts.key }],
              plan: `sha256 ${
                order.plan.slice(0, 16)
              }… (so this work order says; it is handed back)`,
            }),
        });
        console.log(`worker: ${countNoun(done, "item")} done`);
      } finally {
        for (const s of ["SIGINT", "SIGTERM"] as const) Deno.removeSignalListener(s, onSignal);
        close();
        await nc.close();
      }
    });
}

function _say(e: WorkerEvent): void {
  // The order's text (a refused order's message quotes it) came over the queue, the server's
  // answers from the server: escaped.
  if (e.kind === "refused") console.error(escapeForTerminal(`worker: refused an order: ${e.why}`));
  else if (e.kind === "failed") {
    console.error(escapeForTerminal(
      `worker: record ${e.index} (${e.workload}) item ${e.item.slice(0, 16)} delivery ` +
        `${e.delivery}: ${e.why}`,
    ));
  } else {
    printText(
      `worker: ${e.kind} record ${e.index} (${e.workload}) item ${
        e.item.slice(0, 16)
      } delivery ${e.delivery}`,
    );
  }
}
