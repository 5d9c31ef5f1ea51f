/** Bitaudit processes whose output is watched while they run (shared by the pool tests). */
import { REPO_ROOT } from "../cli/_run.ts";

/**
 * A bitaudit process whose stdout is read as it comes.
 *
 * @param args command-line arguments
 * @param perms Deno permission flags
 */
export function spawnBitaudit(args: string[], perms: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", ...perms, `${REPO_ROOT}/src/cli/main.ts`, ...args],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  let out = "";
  let err = "";
  let wake = () => {};
  const pump = async (s: ReadableStream<Uint8Array>, add: (t: string) => void) => {
    const decoder = new TextDecoder();
    for await (const chunk of s) {
      add(decoder.decode(chunk, { stream: true }));
      wake();
    }
    wake();
  };
  const pumps = Promise.all([
    pump(child.stdout, (t) => (out += t)),
    pump(child.stderr, (t) => (err += t)),
  ]);
  return {
    pid: child.pid,
    /** Resolves with the first stdout (or, with `stream` "stderr", stderr) match of `re`. */
    async waitFor(re: RegExp, stream: "stdout" | "stderr" = "stdout"): Promise<RegExpMatchArray> {
      const text = () => (stream === "stdout" ? out : err);
      for (;;) {
        const m = text().match(re);
        if (m) return m;
        const ended = await Promise.race([
          new Promise<boolean>((r) => (wake = () => r(false))),
          child.status.then(() => true),
        ]);
        if (ended && !text().match(re)) throw new Error(`process ended: ${out}${err}`);
      }
    },
    async done() {
      const { code } = await child.status;
      await pumps;
      return { code, stdout: out, stderr: err };
    },
  };
}
