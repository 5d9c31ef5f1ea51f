/**
 * `bitaudit audit serve`: the coordinator of a NATS JetStream worker pool. Publishes a plan's
 * work orders, collects one result per item from any number of `bitaudit worker` processes,
 * merges and signs exactly as `audit merge` does.
 *
 * @module
 */
import { ownBuild } from "../../verify/mod.ts";
import { Command } from "@commander-js/extra-typings";
import { itemResultOf, verifyItemResultSignature } from "../../attest/mod.ts";
import { InputError } from "../../errors.ts";
import { escapeForTerminal } from "../../escape_text.ts";
import { servePlan } from "../../pool/mod.ts";
import { prepareOutputDir } from "../load_inputs.ts";
import { NATS_ACCESS_OPTIONS, natsConnect } from "../nats_connect.ts";
import { intFlag } from "../plan_inputs.ts";
import { progressBar } from "../progress.ts";
import { mergeAndSign, mergeInputs } from "../merge_and_sign.ts";
import { REVERIFY_OPTION, VERDICT_FILES } from "./audit_merge.ts";
import { TRUST_ROOT_OPTION } from "../trust_root_flag.ts";
import { countNoun } from "../count_noun.ts";

/** Longest delay a timer holds (ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Skipped messages named one by one before only their count is said. */
const MAX_SKIP_LINES = 20;

/**
 * Builds the `audit serve` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { auditServeCommand } from "./audit_serve.ts";
 * if (auditServeCommand().name() !== "serve") throw new Error();
 * ```
 */
export function auditServeCommand(): Command {
  return new Command("serve")
    .description(
      "serve a plan's items to `bitaudit worker` processes over NATS JetStream, collect one result per item, merge and sign",
    )
    .requiredOption("--plan <file>", "plan.json from `audit plan`")
    .requiredOption(
      "--nats <url>",
      "NATS server with JetStream (nats://host:port; tls://host:port requires TLS)",
    )
    .option(...NATS_ACCESS_OPTIONS[0])
    .option(...NATS_ACCESS_OPTIONS[1])
    .option(...NATS_ACCESS_OPTIONS[2])
    .option(...NATS_ACCESS_OPTIONS[3])
    .requiredOption("--key <files...>", "inspector private key(s) (PKCS#8 PEM); several co-sign")
    .requiredOption(
      "--worker-pub <files...>",
      "public keys (SPKI PEM) of the workers whose signed results are accepted",
    )
    .requiredOption("--out <dir>", "folder for attestation.dsse.json, report.md and report.html")
    .option(...TRUST_ROOT_OPTION)
    .option("--time <rfc3339>", "signing time recorded in the verdict (default: now)")
    .option("--ack-wait <s>", "seconds without an ack or heartbeat before redelivery", "30")
    .option("--max-deliver <n>", "deliveries of one item before it is given up", "5")
    .option("--timeout <s>", "seconds to wait for all results (then missing items)", "86400")
    .option(
      "--fresh",
      "merge only the results of this serve's orders (skip earlier serves' results, stored or replayed)",
    )
    .option(...REVERIFY_OPTION)
    .option("--log <file>", "claims.jsonl, to re-verify (default: beside the plan)")
    .option("--blobs <dir>", "tensor blobs by sha256, to re-verify (default: <log folder>/blobs)")
    .option("--threads <n>", "worker threads for re-verification")
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      // Timers hold at most 2^31 - 1 ms (about 24.8 days); a longer one would fire at once.
      const maxSeconds = Math.floor(MAX_TIMER_MS / 1000);
      const ackWaitMs = intFlag(opts.ackWait, { flag: "--ack-wait", min: 1, max: 86_400 }) * 1000;
      const maxDeliver = intFlag(opts.maxDeliver, { flag: "--max-deliver", min: 1 });
      const timeoutMs = intFlag(opts.timeout, { flag: "--timeout", min: 1, max: maxSeconds }) *
        1000;
      const inputs = await mergeInputs(opts);
      const { plan, planDigest, workers } = inputs;
      const done = await prepareOutputDir(opts.out, VERDICT_FILES);
      let served;
      let skipped = 0;
      try {
        const nc = await natsConnect(opts, "bitaudit-coordinator");
        const bar = progressBar("collecting", { enabled: !opts.json });
        // Where the bar does not show (as progressBar decides), a line per tenth does.
        const tenths = opts.json || !Deno.stderr.isTerminal() ? _tenths() : undefined;
        try {
          served = await servePlan(nc, {
            plan,
            planDigest,
            queue: { ackWaitMs, maxDeliver },
            timeoutMs,
            build: ownBuild(inputs.store),
            fresh: opts.fresh === true,
            open: async (line, where) => {
              let signed;
              try {
                signed = await verifyItemResultSignature(line, { where, workers });
              } catch (e) {
                // Not an accepted worker's word: anyone reaching the server could have sent it.
                if (e instanceof InputError) return { skip: e.message };
                throw e;
              }
              return itemResultOf(signed, where); // unreadable here: skipped by servePlan
            },
            // Another client (anyone the server lets in) or an older version had changed it.
            onStreamReset: (line) => console.error(escapeForTerminal(`NATS: reset ${line}`)),
            onSkipped: (where, why) => {
              if (++skipped <= MAX_SKIP_LINES) {
                console.error(escapeForTerminal(`skipped ${where}: ${why}`));
              }
            },
            // Said on stderr whatever the terminal: with no worker yet the wait can last the
            // whole --timeout, and a log should show that the work is out and what has come back.
            onPublished: (items, serve) => {
              console.error(
                `published ${items} work orders for plan ${planDigest.slice(0, 16)}… (serve ` +
                  `${serve}); waiting up to ${timeoutMs / 1000} s for \`bitaudit worker\` ` +
                  "processes to return results",
              );
            },
            onProgress: (got, total) => {
              bar.update(got, total);
              tenths?.update(got, total);
            },
          });
        } finally {
          bar.stop();
          await nc.close();
          if (skipped > MAX_SKIP_LINES) {
            console.error(`skipped ${skipped} messages in all (the first ${MAX_SKIP_LINES} named)`);
          }
        }
        if (served.stale > 0) {
          console.error(
            `--fresh: skipped ${countNoun(served.stale, "result")} stored before this serve began`,
          );
        }
      } catch (e) {
        await done(false);
        throw e;
      }
      await mergeAndSign(done, {
        ...inputs,
        results: served.results,
        duplicates: served.duplicates,
        rerun: "serve again with --fresh once the worker is mended: the results stored on the " +
          "server, this one included, are read again otherwise",
      });
    });
}

/**
 * A line on stderr each time the results collected pass another tenth of the plan, where no
 * progress bar shows them (stderr not a terminal, or --json).
 */
function _tenths(): { update(got: number, total: number): void } {
  let said = 0;
  return {
    update(got, total) {
      const tenth = Math.floor((got * 10) / total);
      if (tenth <= said) return;
      said = tenth;
      console.error(
        `collected ${got} of ${countNoun(total, "result")} (${Math.floor((got * 100) / total)}%)`,
      );
    },
  };
}
