/**
 * Runs the checker page in headless Chromium for the tests: `driveChecker` starts
 * `_checker_driver.ts` in a subprocess (playwright reads /proc, which Deno grants only with
 * --allow-all; the tests themselves keep the usual permission flags).
 */
/** What the page shows after a check. */
export interface PageResult {
  /** `valid`, `invalid` or `refused`. */
  state: string;
  /** The result heading (the attestation's validity). */
  headline: string;
  /** The verdict's own line (`#verdict`), empty when there is none. */
  verdict: string;
  /** Its classes, e.g. `verdict failed`. */
  verdictClass: string;
  /** Computed text colours of the heading and the verdict line. */
  colors: { headline: string; verdict: string };
  /** What the page says was chosen for each input (attestation, trust root, log, timestamp). */
  chosen: string[];
  /** Rows of the named-checks table: [check, ok|FAIL, detail]. */
  checks: string[][];
  /** All text of the result region. */
  text: string;
  /** Elements inside the result region other than the page's own markup. */
  foreign: number;
  /** Whether any injected script ran. */
  pwned: boolean;
  /** Id of the focused element after the check. */
  focused: string;
  /**
   * With `keyboard`: the drop zone's outline when Tab focused it, and the keys that opened a
   * chooser of several files.
   */
  dropZone?: { outline: string; keys: string[] };
  /** The drop zone's note (files it did not take, and why). */
  dropNote: string;
  /** Workers the page started. */
  workers: number;
  /**
   * With `stopWith`: workers running when the claim log's progress showed, workers ended once
   * the new file was chosen, and the result region's text then.
   */
  stopped?: { running: number; endedAfter: number; result: string };
}

/** One check to run in the page. */
export interface PageCase {
  /**
   * Paths for the inputs (log and RFC 3161 timestamp optional); `extra`: more files chosen with
   * them through the drop zone's chooser and `handLog` a claim log chosen in its own field first
   * (keyboard cases only).
   */
  files: {
    attestation: string;
    trustRoot: string;
    log?: string;
    timestamp?: string;
    extra?: string[];
    /** A claim log chosen in its own field before the drop (keyboard cases only). */
    handLog?: string;
    /**
     * The trust root goes with the other files through the drop zone's chooser, none chosen in
     * its own field (keyboard cases only).
     */
    dropRoot?: boolean;
  };
  /** When given, a PNG screenshot of the page is written there. */
  shot?: string;
  /** Open the page from a static HTTP server on loopback instead of file://. */
  http?: boolean;
  /**
   * Choose the files from the keyboard only, through the drop zone's chooser. When the page then
   * leaves the check disabled (say, two files claimed one input), the result has state `not-run`.
   */
  keyboard?: boolean;
  /**
   * Once the first check reports the claim log's progress, choose this file as the claim log
   * (which should stop that check), then check again; the result is the second check's.
   */
  stopWith?: string;
}

/**
 * Runs checks in Chromium, in a subprocess running this file.
 *
 * @param cases the checks
 * @returns what the page showed, per case
 */
export async function driveChecker(cases: readonly PageCase[]): Promise<PageResult[]> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-all",
      new URL("./_checker_driver.ts", import.meta.url).pathname,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(JSON.stringify(cases)));
  await w.close();
  const out = await child.output();
  const dec = new TextDecoder();
  if (!out.success) throw new Error(`checker driver failed: ${dec.decode(out.stderr)}`);
  return JSON.parse(dec.decode(out.stdout));
}
