/**
 * The `bitaudit` command line.
 *
 * Exit codes: 0 ok/PASS, 1 mismatch or FAIL, 2 usage or input error (including tampered assets),
 * 3 NOT_VERIFIED / inconclusive, 70 internal error.
 *
 * @module
 */
import { Command, CommanderError } from "@commander-js/extra-typings";
import { BitauditError } from "../errors.ts";
import { EXIT } from "./exit_codes.ts";
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
import { bundleCommand } from "./commands/bundle.ts";
import { VERSION } from "../version.ts";

/**
 * Builds the full command tree.
 *
 * @returns the root command (not yet parsed)
 * @example
 * ```ts
 * import { buildCli } from "./main.ts";
 * if (buildCli().name() !== "bitaudit") throw new Error();
 * ```
 */
export function buildCli(): Command {
  const program = new Command("bitaudit")
    .description("bit-exact verifier of AI inference claims (NVIDIA GPU arithmetic emulation)")
    .version(VERSION, "-V, --version")
    .exitOverride()
    .configureOutput({ writeErr: (s) => Deno.stderr.writeSync(new TextEncoder().encode(s)) })
    .showHelpAfterError(false);
  for (
    const sub of [
      announceCommand(),
      auditCommand(),
      checkCommand(),
      bundleCommand(),
      claimsCommand(),
      keyCommand(),
      planCommand(),
      gemmCommand(),
      modelCommand(),
      profilesCommand(),
      vectorsCommand(),
      demoCommand(),
    ]
  ) {
    program.addCommand(sub);
  }
  for (const c of program.commands) {
    c.exitOverride();
    for (const s of c.commands) s.exitOverride();
  }
  return program;
}

/**
 * Runs the CLI with arguments and returns the exit code (never throws).
 *
 * @param args command-line arguments (without the program name)
 * @returns the process exit code
 * @example
 * ```ts ignore
 * Deno.exit(await runCli(Deno.args));
 * ```
 */
export async function runCli(args: string[]): Promise<number> {
  try {
    await buildCli().parseAsync(args, { from: "user" });
    return typeof Deno.exitCode === "number" ? Deno.exitCode : EXIT.OK;
  } catch (e) {
    return _report(e);
  }
}

function _report(e: unknown): number {
  if (e instanceof CommanderError) {
    // Help and version requests end here too, with exit code 0; commander already printed.
    return e.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
  }
  if (e instanceof BitauditError) {
    console.error(`error [${e.code}]: ${e.message}`);
    return EXIT.USAGE;
  }
  if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
    console.error(`error [PERMISSION]: ${(e as Error).message.split("\n")[0]}`);
    return EXIT.USAGE;
  }
  if (e instanceof Deno.errors.NotFound) {
    console.error(`error [NOT_FOUND]: ${(e as Error).message.split("\n")[0]}`);
    return EXIT.USAGE;
  }
  console.error(`internal error: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
  return EXIT.INTERNAL;
}

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args));
}
