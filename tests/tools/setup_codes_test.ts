/**
 * The test command's set-up steps stop with their coded line and exit 2 when the package manager
 * fails (an offline machine missing nats-server, openssl or Chromium), not with a stack trace or a bare
 * exit 1 (docs/errors.md, set-up codes).
 */
import assert from "node:assert/strict";
import { tempDir } from "../_temp.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * A folder holding an `apt-get` that fails as an offline one does, a password-less `sudo` (so that
 * the apt-get step is reached whoever runs the tests), plus the named programs.
 */
async function offlineBin(programs: string[]): Promise<string> {
  const dir = await tempDir({ prefix: "bitaudit-offline-bin-" });
  await Deno.writeTextFile(`${dir}/apt-get`, "#!/bin/sh\necho 'E: offline' >&2\nexit 100\n", {
    mode: 0o755,
  });
  await Deno.writeTextFile(`${dir}/sudo`, '#!/bin/sh\nshift\n"$@"\n', { mode: 0o755 });
  for (const p of programs) {
    const which = await new Deno.Command("sh", { args: ["-c", `command -v ${p}`] }).output();
    await Deno.symlink(new TextDecoder().decode(which.stdout).trim(), `${dir}/${p}`);
  }
  return dir;
}

/** Runs tools/ensure_debian_tools.sh with only `bin` on the PATH. */
async function ensureDebianTools(bin: string): Promise<{ code: number; err: string }> {
  const r = await new Deno.Command(`${bin}/bash`, {
    args: [`${ROOT}tools/ensure_debian_tools.sh`],
    env: { PATH: bin },
    clearEnv: true,
  }).output();
  return { code: r.code, err: new TextDecoder().decode(r.stderr) };
}

Deno.test("ensure_debian_tools.sh: a failing apt-get for nats-server is NATS_SERVER_MISSING, exit 2", async () => {
  const { code, err } = await ensureDebianTools(await offlineBin(["bash", "id"]));
  assert.equal(code, 2, err);
  assert.match(err, /^error \[NATS_SERVER_MISSING\]: Cannot install nats-server: apt-get failed/m);
});

Deno.test("ensure_debian_tools.sh: a failing apt-get for openssl is OPENSSL_MISSING, exit 2", async () => {
  const { code, err } = await ensureDebianTools(await offlineBin(["bash", "id", "nats-server"]));
  assert.equal(code, 2, err);
  assert.match(err, /^error \[OPENSSL_MISSING\]: Cannot install openssl: apt-get failed/m);
});

Deno.test("ensure_debian_tools.sh: with every tool present it installs nothing and says nothing", async () => {
  const { code, err } = await ensureDebianTools(
    await offlineBin(["bash", "id", "nats-server", "openssl"]),
  );
  assert.equal(code, 0, err);
  assert.equal(err, "");
});

// The script installs only where /usr/bin/apt-get is (else it says so, another NO_CHROMIUM line).
const hasAptGet = await Deno.stat("/usr/bin/apt-get").then(() => true, () => false);

Deno.test({
  name: "ensure_chromium.ts: a failing apt-get is NO_CHROMIUM, exit 2, no stack trace",
  ignore: !hasAptGet,
}, async () => {
  const bin = await offlineBin(["id"]);
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-check", `${ROOT}tools/web/ensure_chromium.ts`],
    env: { PATH: bin, CHROMIUM: `${bin}/no-chromium`, NO_COLOR: "1" },
  }).output();
  const err = new TextDecoder().decode(r.stderr);
  assert.equal(r.code, 2, err);
  assert.match(err, /^error \[NO_CHROMIUM\]: Cannot install chromium: apt-get update -qq failed/m);
  assert.doesNotMatch(err, /Uncaught|\n\s+at /);
});
