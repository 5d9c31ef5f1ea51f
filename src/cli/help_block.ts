/**
 * The teaching part of a command's `--help`: an example command line and the exit codes the
 * command can end with, each with its meaning, formatted from {@link EXIT} (so a code added there
 * needs its meaning here, or type checking fails).
 *
 * @module
 */
import { EXIT } from "./exit_codes.ts";

/** The name of a process exit code in {@link EXIT}. */
export type ExitName = keyof typeof EXIT;

/** What a command's help teaches. */
export interface CommandHelp {
  /**
   * Example command lines, starting with `bitaudit`; a long one continues on lines of its own
   * (`"bitaudit audit --log claims.jsonl \\\n--k 100"`), shown indented under it.
   */
  readonly examples: readonly string[];
  /**
   * The exit codes the command can end with besides `RESOURCES` and `INTERNAL` (always listed:
   * any command can run out of memory, or meet a bug).
   */
  readonly exits: readonly ExitName[];
  /** The command's own meaning of an exit code, where it says more than the general one. */
  readonly meanings?: Readonly<Partial<Record<ExitName, string>>>;
}

/** The general meaning of each exit code. */
const _MEANING: Readonly<Record<ExitName, string>> = {
  OK: "success",
  FAIL: "a mismatch: verification FAILED",
  USAGE: "usage or input error: a bad flag, or an input that is unreadable, malformed, " +
    "refused or tampered with (the error line names its code)",
  INCONCLUSIVE: "INCONCLUSIVE: nothing wrong was found, but not everything could be verified " +
    "(NOT_VERIFIED)",
  RESOURCES: "this machine ran out of memory (no input's fault; rerun where more is available)",
  ASSET: "an asset of this install is tampered with, missing or unreadable (no input's fault; " +
    "reinstall bitaudit)",
  OTHER_ASSETS: "check: the attested verdict names this release but assets other than this " +
    "release's (an install whose assets were changed computed it): INVALID",
  INTERNAL: "internal error: a bug in bitaudit, whatever the input (please report it)",
};

/**
 * Formats the "Example:" and "Exit codes:" block shown after a command's help.
 *
 * @param help the examples, the exit codes and any command-specific meanings
 * @returns the block, starting with a blank line (for commander's `addHelpText("after", ...)`)
 * @throws {RangeError} when there is no example or an example does not start with `bitaudit `
 * @example
 * ```ts
 * import { helpBlock } from "./help_block.ts";
 * const b = helpBlock({ examples: ["bitaudit profiles list"], exits: ["OK", "USAGE"] });
 * if (!b.includes("Example:\n  $ bitaudit profiles list") || !b.includes("\n  70  ")) {
 *   throw new Error(b);
 * }
 * ```
 */
export function helpBlock(help: CommandHelp): string {
  if (help.examples.length === 0 || help.examples.some((e) => !e.startsWith("bitaudit "))) {
    throw new RangeError("Cannot format help: examples must be 'bitaudit ...' command lines");
  }
  const names = [...new Set<ExitName>([...help.exits, "RESOURCES", "INTERNAL"])]
    .sort((a, b) => EXIT[a] - EXIT[b]);
  return [
    "",
    help.examples.length === 1 ? "Example:" : "Examples:",
    ...help.examples.flatMap((e) =>
      e.split("\n").map((line, i) => i === 0 ? `  $ ${line}` : `      ${line}`)
    ),
    "",
    "Exit codes:",
    ...names.flatMap((n) =>
      _wrap(help.meanings?.[n] ?? _MEANING[n], _WIDTH - 6).map((line, i) =>
        i === 0 ? `  ${String(EXIT[n]).padEnd(2)}  ${line}` : `      ${line}`
      )
    ),
  ].join("\n");
}

/** Width of the help text (commander wraps its own part at 80 columns). */
const _WIDTH = 80;

/** Breaks text into lines of at most `width` characters at spaces (a longer word stays whole). */
function _wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, line];
}
