/** Runs the bitaudit CLI in a subprocess (shared by the CLI tests). */
import { tempDir } from "../_temp.ts";

const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

/** Result of one CLI run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `bitaudit <args>` from a repository checkout.
 *
 * @param args CLI arguments
 * @param options `root` of the checkout to run (default this one), extra Deno permission flags,
 *   extra environment variables
 */
export async function runBitaudit(
  args: string[],
  options: { root?: string; perms?: string[]; env?: Record<string, string> } = {},
): Promise<CliRun> {
  const root = options.root ?? ROOT;
  const perms = options.perms ?? ["--allow-read", "--allow-write"];
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", ...perms, `${root}/src/cli/main.ts`, ...args],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...options.env },
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/**
 * Copies the parts of the checkout the CLI needs into a temporary folder (or a `folder` in it),
 * removed when the test module ends.
 */
export async function copyCheckout(o: { readonly folder?: string } = {}): Promise<string> {
  const top = await tempDir({ prefix: "bitaudit-cli-" });
  const dir = o.folder === undefined ? top : `${top}/${o.folder}`;
  if (o.folder !== undefined) await Deno.mkdir(dir);
  const copy = async (rel: string) => {
    const info = await Deno.stat(`${ROOT}/${rel}`);
    if (info.isDirectory) {
      await Deno.mkdir(`${dir}/${rel}`, { recursive: true });
      for await (const e of Deno.readDir(`${ROOT}/${rel}`)) await copy(`${rel}/${e.name}`);
    } else await Deno.copyFile(`${ROOT}/${rel}`, `${dir}/${rel}`);
  };
  for (const rel of ["deno.json", "deno.lock", "src", "profiles", "tables", "schemas"]) {
    await copy(rel);
  }
  return dir;
}

/** The repository root. */
export const REPO_ROOT = ROOT;

/**
 * A command line's arguments with some of its options given other values: each option of `extra`
 * that takes a value replaces the same option's value in `base` (the CLI refuses an option that
 * takes one value given twice, so a test changes a value instead of repeating the option); the
 * other arguments of `extra` (flags, new options) are added after `base`.
 *
 * @param base the arguments
 * @param extra options to set, e.g. `["--context", "0x10"]`
 * @returns the arguments with `extra`'s values
 */
export function withOverrides(base: readonly string[], extra: readonly string[]): string[] {
  const out = [...base];
  const added: string[] = [];
  const isFlag = (a: string | undefined) => a !== undefined && a.startsWith("--");
  for (let i = 0; i < extra.length; i++) {
    const arg = extra[i]!;
    const value = extra[i + 1];
    if (!isFlag(arg) || value === undefined || isFlag(value)) {
      added.push(arg); // a flag without a value, or a positional argument
      continue;
    }
    i++;
    const at = out.indexOf(arg);
    if (at >= 0 && out[at + 1] !== undefined && !isFlag(out[at + 1])) out[at + 1] = value;
    else added.push(arg, value);
  }
  return [...out, ...added];
}

/**
 * `bitaudit model synth` of `config` into `out` (seed 1), with `extra` flags.
 *
 * @param config the config.json path
 * @param out the output folder
 * @param extra further flags (e.g. `--shards`)
 * @returns the run
 */
export function modelSynth(config: string, out: string, extra: string[] = []): Promise<CliRun> {
  return runBitaudit(["model", "synth", "--config", config, "--seed", "1", "--out", out, ...extra]);
}
