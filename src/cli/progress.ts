/**
 * A progress bar on stderr for long runs: shown only on a terminal and never in `--json` mode.
 *
 * @module
 */
import cliProgress from "cli-progress";
import process from "node:process";

/** Progress callback plus a way to finish the bar. */
export interface Progress {
  /** Reports `done` of `total`. */
  update(done: number, total: number): void;
  /** Removes the bar. */
  stop(): void;
}

/**
 * Creates a progress reporter.
 *
 * @param label text before the bar
 * @param options `enabled`: false for `--json`; the bar also stays off when stderr is not a TTY
 * @returns the reporter (a no-op when disabled)
 * @example
 * ```ts
 * import { progressBar } from "./progress.ts";
 * const p = progressBar("verifying", { enabled: false });
 * p.update(1, 2);
 * p.stop();
 * ```
 */
export function progressBar(label: string, options: { enabled: boolean }): Progress {
  if (!options.enabled || !Deno.stderr.isTerminal()) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar({
    stream: process.stderr,
    format: `${label} [{bar}] {value}/{total} {percentage}% eta {eta_formatted}`,
    hideCursor: true,
    clearOnComplete: true,
  }, cliProgress.Presets.shades_classic);
  let started = false;
  return {
    update(done: number, total: number) {
      if (!started) {
        bar.start(total, 0);
        started = true;
      }
      bar.update(done);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
