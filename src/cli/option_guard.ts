/**
 * Rules every command's options and arguments follow, checked once for the whole command tree as
 * commander reads the command line: a path given on the command line is never empty (an empty
 * `--out` would make `<out>/report.md` the file `/report.md` at the root of the filesystem).
 *
 * @module
 */
import type { CommandUnknownOpts, Option } from "@commander-js/extra-typings";
import { UsageError } from "../errors.ts";

/**
 * Attaches the rules to a command and every subcommand under it: an empty value of an option that
 * names a file or folder, and an empty positional argument (a file, a folder or an id), are
 * refused with `USAGE_PATH` before the command does anything.
 *
 * @param cmd the command (the whole program, at startup)
 * @throws {UsageError} `USAGE_PATH`, from the parse, for an empty path
 * @example
 * ```ts
 * import { Command } from "@commander-js/extra-typings";
 * import { guardOptions } from "./option_guard.ts";
 * const cmd = new Command("x").exitOverride().option("--out <dir>", "folder").action(() => {});
 * guardOptions(cmd);
 * let code = "";
 * try {
 *   cmd.parse(["--out", ""], { from: "user" });
 * } catch (e) {
 *   code = (e as { code: string }).code;
 * }
 * if (code !== "USAGE_PATH") throw new Error(code);
 * ```
 */
export function guardOptions(cmd: CommandUnknownOpts): void {
  for (const option of cmd.options as readonly Option[]) {
    if (!option.required && !option.optional) continue; // a flag without a value
    if (!_namesPath(option)) continue;
    const flag = option.long ?? option.short ?? option.flags;
    cmd.on(`option:${option.name()}`, (value: unknown) => {
      if (value === "") {
        throw new UsageError("USAGE_PATH", `Cannot use ${flag}: the path is empty`);
      }
    });
  }
  cmd.hook("preAction", (_self, action) => {
    if (action !== cmd) return;
    const named = action.registeredArguments;
    action.processedArgs.forEach((value: unknown, i: number) => {
      const values = Array.isArray(value) ? value : [value];
      if (values.includes("")) {
        const name = named[i]?.name() ?? String(i + 1);
        throw new UsageError("USAGE_PATH", `Cannot use the <${name}> argument: it is empty`);
      }
    });
  });
  for (const sub of cmd.commands) guardOptions(sub);
}

/**
 * Whether an option's value names a file or folder: `--out` (whatever its placeholder, e.g. the
 * `<name>` prefix of `key generate`), or a placeholder naming a file, files, a folder or a JSON
 * file (`<file>`, `<files...>`, `<dir>`, `<id|file.json>`, `<tokens.json>`, `<root>`).
 */
function _namesPath(option: Option): boolean {
  if (option.long === "--out") return true;
  const placeholder = /[<[]([^>\]]*)[>\]]/.exec(option.flags)?.[1] ?? "";
  return /file|dir|\.json|\.safetensors|^root$/.test(placeholder);
}
