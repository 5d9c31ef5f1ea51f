/**
 * The `bitaudit` command line.
 *
 * Exit codes: 0 ok/PASS, 1 mismatch or FAIL, 2 usage or input error (including tampered assets),
 * 3 NOT_VERIFIED / inconclusive, 70 internal error. Each coded error's exit code comes from the
 * tables of `exit_codes.ts`, keyed by the code unions of `src/errors.ts`.
 *
 * @example
 * ```ts
 * import { runCli } from "./main.ts";
 * if (await runCli(["plan", "--population", "1000", "--p-false", "0.01", "--k", "100"]) !== 0) {
 *   throw new Error("plan reports what a sample of 100 detects");
 * }
 * ```
 * @module
 */
import { Command, CommanderError } from "@commander-js/extra-typings";
import {
  AssetError,
  HostResourceError,
  InputError,
  isHostResourceError,
  UsageError,
} from "../errors.ts";
import { EXIT, exitCodeOf, type HostCode } from "./exit_codes.ts";
import { profilesCommand } from "./commands/profiles.ts";
import { vectorsCommand } from "./commands/vectors.ts";
import { demoCommand } from "./commands/demo.ts";
import { gemmCommand } from "./commands/gemm.ts";
import { keyCommand } from "./commands/key.ts";
import { claimsCommand } from "./commands/claims.ts";
import { planCommand } from "./commands/plan.ts";
import { announceCommand } from "./commands/announce.ts";
import { auditCommand } from "./commands/audit.ts";
import { checkCommand } from "./commands/check.ts";
import { modelCommand } from "./commands/model.ts";
import { pageCommand } from "./commands/page.ts";
import { workerCommand } from "./commands/worker.ts";
import { bundleCommand } from "./commands/bundle.ts";
import { stacksCommand } from "./commands/stacks.ts";
import { catalogsCommand } from "./commands/catalogs.ts";
import { COMMAND_HELP } from "./command_help.ts";
import { guardOptions } from "./option_guard.ts";
import { helpBlock } from "./help_block.ts";
import { VERSION } from "../version.ts";
import { escapeForTerminal } from "../escape_text.ts";
import { clipText } from "../clip_text.ts";

/** Builds the full command tree (not yet parsed). */
function _buildCli(): Command {
  const program = new Command("bitaudit")
    .description("bit-exact verifier of AI inference claims (NVIDIA GPU arithmetic emulation)")
    .version(VERSION, "-V, --version")
    .exitOverride()
    .showHelpAfterError(false)
    .enablePositionalOptions() // so `audit` and its subcommands (`audit work`) each own their flags
    .addHelpText("after", helpBlock(COMMAND_HELP[""]!));
  for (
    const sub of [
      announceCommand(),
      auditCommand(),
      workerCommand(),
      checkCommand(),
      pageCommand(),
      bundleCommand(),
      claimsCommand(),
      keyCommand(),
      planCommand(),
      gemmCommand(),
      modelCommand(),
      profilesCommand(),
      stacksCommand(),
      catalogsCommand(),
      vectorsCommand(),
      demoCommand(),
    ]
  ) {
    program.addCommand(sub);
  }
  guardOptions(program);
  // Commander's own error lines are dropped: `_report` prints them in the `error [USAGE]:` form.
  // Help is plain text: commander would otherwise read colour settings from the environment,
  // which the hermetic command lines (no --allow-env) do not grant.
  const quiet = {
    outputError: () => {},
    getOutHasColors: () => false,
    getErrHasColors: () => false,
  };
  program.configureOutput({ ...quiet, writeErr: _writeErr });
  for (const c of program.commands) {
    c.exitOverride().configureOutput({ ...quiet, writeErr: _writeErr });
    for (const s of c.commands) s.exitOverride().configureOutput({ ...quiet, writeErr: _writeErr });
  }
  return program;
}

/**
 * Runs the CLI with arguments and returns the exit code (never throws). Commands set the process
 * exit code; it is read for this run alone and set back to what it was, so that one call's code
 * does not become a later call's or the host process's; calls made together run one after the
 * other. While a command runs, Ctrl-C and SIGTERM
 * remove its partial outputs and end the process (130, 143), as the command line does.
 *
 * @param args command-line arguments (without the program name)
 * @returns the process exit code
 * @example
 * ```ts ignore
 * Deno.exit(await runCli(Deno.args));
 * ```
 */
export function runCli(args: string[]): Promise<number> {
  // One at a time: commands report through the process's exit code.
  const run = _queue.then(() => _runCli(args));
  _queue = run.then(() => {}, () => {});
  return run;
}

/** The end of the last `runCli` call queued. */
let _queue: Promise<void> = Promise.resolve();

async function _runCli(args: string[]): Promise<number> {
  const before = Deno.exitCode;
  Deno.exitCode = EXIT.OK;
  try {
    await _buildCli().parseAsync(args, { from: "user" });
    return typeof Deno.exitCode === "number" ? Deno.exitCode : EXIT.OK;
  } catch (e) {
    return _report(e);
  } finally {
    Deno.exitCode = before;
  }
}

function _report(e: unknown): number {
  if (e instanceof CommanderError) {
    // Help and version requests end here too, with exit code 0; commander already printed.
    if (e.exitCode === 0) return EXIT.OK;
    // Without a command commander prints the help and throws "(outputHelp)".
    const why = e.message === "(outputHelp)"
      ? "no command given (the commands are listed above)"
      : e.message.replace(/^error: /, "").split("\n")[0]!;
    const host: HostCode = "USAGE";
    console.error(`error [${host}]: Cannot parse the command line: ${_line(why)}`);
    return exitCodeOf({ host });
  }
  if (e instanceof AssetError || e instanceof InputError || e instanceof UsageError) {
    // Messages quote input text (paths, ids, field names): escaped so it cannot drive the terminal.
    console.error(`error [${e.code}]: ${_line(e.message)}`);
    return exitCodeOf(e);
  }
  if (e instanceof Deno.errors.NotCapable) {
    return _host("PERMISSION", "Cannot go on without a permission Deno was not given", e);
  }
  if (e instanceof Deno.errors.PermissionDenied) {
    return _host("PERMISSION", "Cannot go on: the system refused access", e);
  }
  if (e instanceof Deno.errors.NotFound) {
    return _host("NOT_FOUND", "Cannot go on: a file or folder is not there", e);
  }
  if (isHostResourceError(e)) {
    // The machine's limit, not an input's fault nor a bug: said as such, with its own exit code.
    const why = (e as Error).message.split("\n")[0]!;
    const text = e instanceof HostResourceError ? why : `Cannot finish: this machine ran out of ` +
      `memory (${why}); rerun where more memory is available`;
    const host = e instanceof HostResourceError && e.resource === "files" ? "FILES" : "MEMORY";
    console.error(`error [${host}]: ${_line(text)}`);
    return exitCodeOf({ host });
  }
  const message = e instanceof Error ? e.message.split("\n")[0]! : String(e);
  console.error(`internal error: ${_line(message)}`);
  return EXIT.INTERNAL;
}

function _host(host: HostCode, action: string, e: Error): number {
  console.error(`error [${host}]: ${action}: ${_line(e.message.split("\n")[0]!)}`);
  return exitCodeOf({ host });
}

/**
 * Longest message an error line quotes (UTF-16 units, before escaping): messages quote inputs
 * (a key, a tensor name, a shape) at whatever length the input gave them, and a line of megabytes
 * is no message a person can read.
 */
const _MAX_MESSAGE = 1000;

/** A message as an error line shows it: clipped to {@link _MAX_MESSAGE}, then escaped. */
function _line(message: string): string {
  return escapeForTerminal(clipText(message, _MAX_MESSAGE));
}

function _writeErr(s: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(s));
}

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args));
}
