/**
 * The browser checker: `bitaudit check` as a static page. `runCheck` parses the dropped files (an
 * envelope or a Sigstore bundle, a trust root, optionally the claim log and an RFC 3161 token) and
 * runs the one `checkAttestation`; `checkView` turns the outcome into plain-language text and
 * details, every string escaped as the CLI prints it; `checkFiles` does both from the files' bytes,
 * as the page's worker (`check_worker.ts`) does; `checker_page.ts` (the bundle's entry, not
 * exported) wires them to the page's DOM. `verdictHeadline`, `verdictMeaning` and
 * `validityHints` are shared with `bitaudit check`, so both say the same.
 * Nothing here touches `Deno.*`, files, engines or the network.
 *
 * @example
 * ```ts
 * import { checkView, runCheck } from "./mod.ts";
 * const view = checkView(await runCheck({ attestation: "not json", trustRoot: "{}" }));
 * if (view.tone !== "refused" || view.headline !== "Cannot read the attestation") throw new Error();
 * ```
 * @module
 */
export {
  type CheckDone,
  type CheckInputName,
  type CheckOutcome,
  type CheckRefusal,
  type CheckTexts,
  runCheck,
} from "./run_check.ts";
export { checkView } from "./check_view.ts";
export type { CheckView, ViewFact, ViewResult } from "./view.ts";
export { refusedView } from "./refused_view.ts";
export { type CheckFiles, checkFiles, type CheckMessage } from "./check_files.ts";
export { verdictHeadline, verdictMeaning, type VerdictTone } from "./verdict_meaning.ts";
export { validityHints, type ValidityInputs } from "./validity_hints.ts";
export { type TrustFacts, trustSentences } from "./trust_sentences.ts";
export { detectionSentence } from "./detection_sentence.ts";
export {
  VERIFIED_ASSUMPTION,
  verifiedCaveat,
  type VerifiedDetection,
  verifiedDetection,
} from "./verified_detection.ts";
