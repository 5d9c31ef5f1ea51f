/**
 * Makes sure Debian's Chromium is installed for the browser tests (`tests/web/`): nothing to do
 * when `$CHROMIUM` or `/usr/bin/chromium` exists, otherwise `apt-get install chromium` (as root, or
 * through password-less sudo, as the nats-server installer does); fails loudly (exit 2) rather
 * than letting a browser test be skipped.
 *
 * Usage: `deno task browser:install`.
 *
 * @module
 */

/** Where the tests look for the browser. */
const CHROMIUM = Deno.env.get("CHROMIUM") ?? "/usr/bin/chromium";

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** `[]` as root, `sudo -n` where password-less sudo works, else null. */
async function asRoot(): Promise<string[] | null> {
  if (Deno.uid() === 0) return [];
  const sudo = await new Deno.Command("sudo", {
    args: ["-n", "true"],
    stdout: "null",
    stderr: "null",
  })
    .output().then((o) => o.success, () => false);
  return sudo ? ["sudo", "-n"] : null;
}

async function apt(root: string[], args: string[]): Promise<void> {
  const [program, ...rest] = [...root, "apt-get", ...args];
  const cmd = new Deno.Command(program!, {
    args: rest,
    env: { DEBIAN_FRONTEND: "noninteractive" },
    stdout: "inherit",
    stderr: "inherit",
  });
  const { success } = await cmd.output().catch(() => ({ success: false }));
  if (!success) {
    // Offline, or the package is not in the configured sources: the set-up code, not a trace.
    console.error(
      `error [NO_CHROMIUM]: Cannot install chromium: apt-get ${
        args.join(" ")
      } failed (install Debian's chromium package, or set CHROMIUM to a Chromium binary)`,
    );
    Deno.exit(2);
  }
}

if (await exists(CHROMIUM)) {
  console.log(`chromium: ${CHROMIUM}`);
} else if (!(await exists("/usr/bin/apt-get"))) {
  console.error(`error [NO_CHROMIUM]: Cannot find ${CHROMIUM}: install Debian's chromium package`);
  Deno.exit(2);
} else {
  const root = await asRoot();
  if (root === null) {
    console.error(
      `error [NO_CHROMIUM]: Cannot install chromium: not root and no password-less sudo (install Debian's chromium package)`,
    );
    Deno.exit(2);
  }
  console.log("chromium: installing Debian's chromium package");
  await apt(root, ["update", "-qq"]);
  await apt(root, ["install", "-y", "-qq", "--no-install-recommends", "chromium"]);
  if (!(await exists(CHROMIUM))) {
    console.error(`error [NO_CHROMIUM]: Cannot find ${CHROMIUM} after installing chromium`);
    Deno.exit(2);
  }
}
