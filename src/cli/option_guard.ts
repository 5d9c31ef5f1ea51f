/**
 * Rules every command's options and arguments follow, checked once for the whole command tree as
 * commander reads the command line: a path given on the command line is never empty (an empty
 * `--out` would make `<out>/report.md` the file `/report.md` at the root of the filesystem), and
 * an option that takes one value is given once (commander keeps the last value and never looks at
 * the others, so `--require-root 00 --require-root <root>` would check the second alone).
 *
 * @module
 */
import { normalize } from "node:path";
import type { CommandUnknownOpts, Option } from "@commander-js/extra-typings";
import { UsageError } from "../errors.ts";

/**
 * Attaches the rules to a command and every subcommand under it, for one parse: an empty value of
 * an option that names a file or folder, and an empty positional argument (a file, a folder or an
 * id), and a value ending in `/` of an option that names one file, are refused with
 * `USAGE_PATH`; `--out` is normalised (`lnk/../x` is `x`, where the output is written), so
 * the lines a command prints name the path written; an option taking one value given more than
 * once is refused with `USAGE_REPEATED` (options taking several values, `<files...>`, may repeat,
 * and so may flags without a value). Both before the command does anything.
 *
 * @param cmd the command (the whole program, at startup)
 * @throws {UsageError} `USAGE_PATH`, from the parse, for an empty path; `USAGE_REPEATED` for a
 *   single-valued option given twice
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
 * @example
 * ```ts
 * import { Command } from "@commander-js/extra-typings";
 * import { guardOptions } from "./option_guard.ts";
 * const cmd = new Command("x").exitOverride().option("--k <k>", "count").action(() => {});
 * guardOptions(cmd);
 * let code = "";
 * try {
 *   cmd.parse(["--k", "2", "--k", "1"], { from: "user" });
 * } catch (e) {
 *   code = (e as { code: string }).code;
 * }
 * if (code !== "USAGE_REPEATED") throw new Error(code);
 * ```
 */
export function guardOptions(cmd: CommandUnknownOpts): void {
  for (const option of cmd.options as readonly Option[]) {
    if (!option.required && !option.optional) continue; // a flag without a value
    const flag = option.long ?? option.short ?? option.flags;
    const path = _namesPath(option);
    const file = _namesFile(option);
    let given = false;
    cmd.on(`option:${option.name()}`, (typed: unknown) => {
      if (path && typed === "") {
        throw new UsageError("USAGE_PATH", `Cannot use ${flag}: the path is empty`);
      }
      // An output goes where its normalised path names (`lnk/../x` is `x`: see writeNewFile),
      // so the command works on, and its lines name, that path.
      const value = option.long === "--out" && typeof typed === "string"
        ? _normalOut(typed, { folder: _placeholder(option) === "dir" })
        : typed;
      // A file written at `dir/` would be the file `dir` (or fail after the work is done).
      if (file && typeof value === "string" && value.endsWith("/")) {
        throw new UsageError(
          "USAGE_PATH",
          `Cannot use ${flag}: it names a file, and '${value}' ends in '/' (give the file's name)`,
        );
      }
      if (value !== typed) {
        cmd.setOptionValueWithSource(option.attributeName(), value, "cli");
      }
      // A variadic option's every value comes as an event of its own: they are all kept.
      if (option.variadic) return;
      if (given) {
        throw new UsageError(
          "USAGE_REPEATED",
          `Cannot use ${flag} more than once: it takes one value (give it once)`,
        );
      }
      given = true;
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
 * Whether an option's value names one file (`<file>`, `<tokens.json>`, `<x.safetensors>`), not
 * files, a folder or a file prefix.
 */
function _namesFile(option: Option): boolean {
  return !option.variadic &&
    /^(file|[\w.-]*\.json|[\w.-]*\.safetensors)$/.test(_placeholder(option));
}

/**
 * `--out` normalised. Where it names a file or a prefix (`<file>`, `<name>`), a last segment `.`
 * or `..` keeps a trailing `/`, as the text names a folder: `normalize` turns `sub/.` into `sub`,
 * which `key generate` would take for the prefix of `sub.key` in the parent folder (it refuses
 * `sub/.`: no file name) and a file writer for the file `sub` (refused here as ending in `/`).
 */
function _normalOut(value: string, o: { readonly folder: boolean }): string {
  const n = normalize(value);
  return !o.folder && /(^|\/)\.\.?$/.test(value) && !n.endsWith("/") ? `${n}/` : n;
}

/** An option's value placeholder (`file` of `--log <file>`), or "". */
function _placeholder(option: Option): string {
  return /[<[]([^>\]]*)[>\]]/.exec(option.flags)?.[1] ?? "";
}

/**
 * Whether an option's value names a file or folder: `--out` (whatever its placeholder, e.g. the
 * `<name>` prefix of `key generate`), or a placeholder naming a file, files, a folder or a JSON
 * file (`<file>`, `<files...>`, `<dir>`, `<id|file.json>`, `<tokens.json>`, `<root>`).
 */
function _namesPath(option: Option): boolean {
  if (option.long === "--out") return true;
  return /file|dir|\.json|\.safetensors|^root$/.test(_placeholder(option));
}
