/**
 * What the checker page's worker does with the files a person chose: decode them as
 * `bitaudit check` reads files, run {@link runCheck} and turn the outcome into a
 * {@link CheckView}. The page hands the files over as bytes and gets plain data back, so parsing
 * a claim log of hundreds of MB, recomputing the sample and reading each sampled record all
 * happen off the page's thread, and the check can be stopped by ending the worker.
 *
 * @module
 */
import { checkView } from "./check_view.ts";
import { refusedView } from "./refused_view.ts";
import { type CheckInputName, type CheckTexts, runCheck } from "./run_check.ts";
import type { CheckView } from "./view.ts";

/** The chosen files' bytes (the page has already held each to its size limit). */
export interface CheckFiles {
  /** The envelope or Sigstore bundle. */
  readonly attestation: Uint8Array;
  /** The trust root. */
  readonly trustRoot: Uint8Array;
  /** The claim log, optional. */
  readonly log?: Uint8Array;
  /** An RFC 3161 token (DER), optional. */
  readonly timestamp?: Uint8Array;
}

/** A message from the checking worker to the page. */
export type CheckMessage =
  | {
    /** Discriminant: the claim log is being read. */
    readonly kind: "progress";
    /** Lines parsed so far. */
    readonly done: number;
    /** Lines in the log. */
    readonly total: number;
  }
  | {
    /** Discriminant: the check ended (or could not start); the last message. */
    readonly kind: "view";
    /** What to show. */
    readonly view: CheckView;
  };

/** A file that is not UTF-8 text, named by its input. */
class _NotText extends Error {
  constructor(readonly input: CheckInputName) {
    super(`Cannot read the ${input}: not valid UTF-8`);
  }
}

/**
 * Text as `bitaudit check` decodes a file: UTF-8, refused on a bad sequence, a byte-order mark
 * kept so that the strict parsers refuse it (as the CLI does).
 */
function _text(bytes: Uint8Array, input: CheckInputName): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new _NotText(input);
  }
}

/**
 * Checks the files and describes the outcome. Never throws: a file that is not text is a `READ`
 * refusal naming its input, and a failure of the checker itself is an `INTERNAL` one.
 *
 * @param files the chosen files' bytes
 * @param options `progress`, told the claim log's lines parsed and their count; `pause`, awaited
 *   between the log's parse steps (a worker needs no pause: the default resolves at once)
 * @returns the view to show
 * @example
 * ```ts
 * import { checkFiles } from "./check_files.ts";
 * const bytes = (s: string) => new TextEncoder().encode(s);
 * const v = await checkFiles({ attestation: bytes("{}"), trustRoot: bytes("{}"), log: new Uint8Array([0xff]) });
 * if (v.headline !== "Cannot read the claim log") throw new Error(v.headline);
 * ```
 */
export async function checkFiles(
  files: CheckFiles,
  options: {
    progress?: (done: number, total: number) => void;
    pause?: () => Promise<void>;
  } = {},
): Promise<CheckView> {
  try {
    const texts: CheckTexts = {
      attestation: _text(files.attestation, "attestation"),
      trustRoot: _text(files.trustRoot, "trust root"),
      ...(files.log === undefined ? {} : { log: _text(files.log, "claim log") }),
      ...(files.timestamp === undefined ? {} : { timestamp: files.timestamp }),
    };
    return checkView(
      await runCheck(texts, {
        pause: options.pause ?? (() => Promise.resolve()),
        ...(options.progress === undefined ? {} : { progress: options.progress }),
      }),
    );
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return e instanceof _NotText
      ? refusedView({ kind: "refused", input: e.input, code: "READ", message })
      : refusedView({ kind: "refused", input: "attestation", code: "INTERNAL", message });
  }
}
