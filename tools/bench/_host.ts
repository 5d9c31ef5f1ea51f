/**
 * Host facts the model benchmarks print beside their figures: the load average, and the
 * process's peak resident set.
 *
 * @module
 */

/** The 1-, 5- and 15-minute load averages, two decimals each. */
export function loadText(): string {
  return Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
}

/**
 * The process's peak resident set so far (VmHWM, workers included), in MiB, or null where /proc
 * is absent. Read through `cat`: Deno grants /proc/self only with --allow-all.
 */
export function peakRssMiB(): number | null {
  try {
    const out = new Deno.Command("cat", { args: [`/proc/${Deno.pid}/status`] }).outputSync();
    const m = /VmHWM:\s+(\d+) kB/.exec(new TextDecoder().decode(out.stdout));
    return m === null ? null : Number(m[1]) / 1024;
  } catch {
    return null;
  }
}

/**
 * The value after `--name` among the arguments, if any.
 *
 * @param args the command's arguments
 * @param name the flag without dashes
 * @returns the value, or undefined when the flag is absent
 */
export function flagValue(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? undefined : args[i + 1];
}
