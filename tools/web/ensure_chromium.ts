/**
 * Makes sure Debian's Chromium is installed for the browser tests (`tests/web/`): nothing to do
 * when `$CHROMIUM` or `/usr/bin/chromium` exists, otherwise `apt-get install chromium` (as root on
 * Debian, the test machines); fails loudly rather than letting a browser test be skipped.
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

async function apt(args: string[]): Promise<void> {
  const cmd = new Deno.Command("apt-get", {
    args,
    env: { DEBIAN_FRONTEND: "noninteractive" },
    stdout: "inherit",
    stderr: "inherit",
  });
  const { success } = await cmd.output();
  if (!success) throw new Error(`apt-get ${args.join(" ")} failed`);
}

if (await exists(CHROMIUM)) {
  console.log(`chromium: ${CHROMIUM}`);
} else if (!(await exists("/usr/bin/apt-get"))) {
  console.error(`error [NO_CHROMIUM]: Cannot find ${CHROMIUM}: install Debian's chromium package`);
  Deno.exit(1);
} else {
  console.log("chromium: installing Debian's chromium package");
  await apt(["update", "-qq"]);
  await apt(["install", "-y", "-qq", "--no-install-recommends", "chromium"]);
  if (!(await exists(CHROMIUM))) {
    console.error(`error [NO_CHROMIUM]: Cannot find ${CHROMIUM} after installing chromium`);
    Deno.exit(1);
  }
}
