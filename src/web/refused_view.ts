/**
 * The checker page's view of a check that did not run: an input could not be read, the page was
 * opened where it cannot check, or the page itself failed. Its own module so that the page's main
 * thread can say so without carrying the verifier (which runs in the page's worker).
 *
 * @module
 */
import { escapeForTerminal } from "../escape_text.ts";
import { type CheckView, EMPTY_DETAILS } from "./view.ts";
import type { CheckRefusal } from "./run_check.ts";

/**
 * The view of a refusal: which input, the error code and message, and that nothing was checked.
 * Every string is escaped as the CLI prints it (a file name or a browser's message may carry
 * control or bidirectional characters).
 *
 * @param refusal the input concerned, the code (`INTERNAL`: the page's own failure;
 *   `INSECURE_CONTEXT`: no WebCrypto where the page was opened) and a one-line message
 * @returns the view, tone `refused`
 * @example
 * ```ts
 * import { refusedView } from "./refused_view.ts";
 * const v = refusedView({ kind: "refused", input: "claim log", code: "READ", message: "Cannot read the claim log: not valid UTF-8" });
 * if (v.headline !== "Cannot read the claim log" || !v.summary[0]!.startsWith("[READ]")) throw new Error();
 * ```
 */
export function refusedView(refusal: CheckRefusal): CheckView {
  const headline = refusal.code === "INTERNAL"
    ? "Internal error of the checker page (not a finding about your files)"
    : refusal.code === "INSECURE_CONTEXT"
    ? "Cannot check here: open this page from a file, localhost or https://"
    : `Cannot read the ${refusal.input}`;
  return {
    ...EMPTY_DETAILS,
    tone: "refused",
    headline: escapeForTerminal(headline),
    summary: [
      escapeForTerminal(`[${refusal.code}] ${refusal.message}`),
      "Nothing was checked. Pick the right file and check again.",
    ],
  };
}
