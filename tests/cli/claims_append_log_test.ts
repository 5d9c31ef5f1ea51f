/** `lockLog()`: taking the lock tidies what killed appends of this log left, and nothing else. */
import assert from "node:assert/strict";
import { lockLog } from "../../src/cli/commands/claims_log_lock.ts";
import { readLogForAppend, replaceLog } from "../../src/cli/commands/claims_append_log.ts";
import { tempStem } from "../../src/cli/temp_sibling.ts";
import { tempDir } from "../_temp.ts";

Deno.test("lockLog() removes this log's leftover temporary copies once it holds the lock", async () => {
  const dir = await tempDir({ prefix: "bitaudit-lock-" });
  const log = `${dir}/claims.jsonl`;
  const uuid = "0f8c1a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b";
  const leftover = `${log}.tmp-${uuid}`;
  const kept = [
    `${dir}/other.jsonl.tmp-${uuid}`,
    `${log}.tmp-not-a-uuid`,
    `${dir}/claimsXjsonl.tmp-${uuid}`,
  ];
  for (const p of [leftover, ...kept]) await Deno.writeTextFile(p, "partial");
  const unlock = await lockLog(log);
  try {
    await assert.rejects(Deno.stat(leftover), Deno.errors.NotFound);
    for (const p of kept) assert.equal(await Deno.readTextFile(p), "partial", p);
  } finally {
    await unlock();
  }
  await assert.rejects(Deno.stat(`${log}.lock`), Deno.errors.NotFound);
});

Deno.test("a log whose name leaves no room for '.tmp-<uuid>' is replaced, and its leftovers found, under a shortened stem", async () => {
  const dir = await tempDir({ prefix: "bitaudit-lock-" });
  // 240 bytes: `<name>.tmp-<uuid>` would be 281, past the 255 a name may take.
  const name = `${"é".repeat(100)}${"c".repeat(34)}.jsonl`;
  assert.equal(new TextEncoder().encode(name).length, 240);
  const log = `${dir}/${name}`;
  await Deno.writeTextFile(log, "");
  await replaceLog(log, { text: "x\n", read: await readLogForAppend(log) });
  assert.equal(await Deno.readTextFile(log), "x\n");
  const stem = tempStem(name);
  assert.ok(
    new TextEncoder().encode(`${stem}.tmp-0f8c1a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b`).length <= 255,
  );
  assert.notEqual(stem, tempStem(`${name.slice(0, -1)}x`), "each name keeps a stem of its own");
  const leftover = `${dir}/${stem}.tmp-0f8c1a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b`;
  await Deno.writeTextFile(leftover, "partial");
  const unlock = await lockLog(log);
  await unlock();
  await assert.rejects(Deno.stat(leftover), Deno.errors.NotFound);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), [name]);
});

/**
 * Replaces a log with "x\n" in a child process under a umask set by the shell (Deno.umask would
 * need --allow-sys).
 */
async function replaceUnderUmask(log: string, umask: string): Promise<void> {
  const mod = new URL("../../src/cli/commands/claims_append_log.ts", import.meta.url).href;
  const r = await new Deno.Command("bash", {
    args: [
      "-c",
      `umask ${umask}; exec "$0" eval "$1" "$2"`,
      Deno.execPath(),
      `import { readLogForAppend, replaceLog } from "${mod}";
       const log = Deno.args[0];
       await replaceLog(log, { text: "x\\n", read: await readLogForAppend(log) });`,
      log,
    ],
  }).output();
  assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
}

/**
 * An empty log of mode 0664 in a group of its own: as root any group can be given; otherwise the
 * process's own (the mode is still checked). A new file's owner is this process (Deno.uid() would
 * need --allow-sys).
 */
async function sharedLog(prefix: string): Promise<{ log: string; gid: number }> {
  const dir = await tempDir({ prefix });
  const log = `${dir}/claims.jsonl`;
  await Deno.writeTextFile(log, "");
  await Deno.chmod(log, 0o664);
  const mine = await Deno.stat(log);
  const gid = mine.uid === 0 ? 4242 : mine.gid!;
  await Deno.chown(log, null, gid);
  return { log, gid };
}

Deno.test("replaceLog() keeps the log's permission bits past the umask, and its group", async () => {
  const { log, gid } = await sharedLog("bitaudit-keep-");
  // The append runs under a umask that narrows new files to 0644.
  await replaceUnderUmask(log, "022");
  const info = await Deno.stat(log);
  assert.equal(await Deno.readTextFile(log), "x\n");
  assert.equal(info.mode! & 0o777, 0o664);
  assert.equal(info.gid, gid);
});

Deno.test("replaceLog() gives a new log the umask's mode, as any new file", async () => {
  const dir = await tempDir({ prefix: "bitaudit-new-" });
  const log = `${dir}/claims.jsonl`;
  await replaceUnderUmask(log, "077");
  assert.equal((await Deno.stat(log)).mode! & 0o777, 0o600);
});

Deno.test("lockLog() refuses while another holder has the lock, and takes it once let go", async () => {
  const dir = await tempDir({ prefix: "bitaudit-lock-" });
  const log = `${dir}/claims.jsonl`;
  const unlock = await lockLog(log);
  assert.equal(await Deno.readTextFile(`${log}.lock`), `${Deno.pid}\n`);
  await assert.rejects(lockLog(log), (e: Error) => {
    assert.equal((e as { code?: string }).code, "LOG_LOCKED");
    assert.match(e.message, new RegExp(`held by process ${Deno.pid} `));
    return true;
  });
  await unlock();
  await assert.rejects(Deno.stat(`${log}.lock`), Deno.errors.NotFound);
  const again = await lockLog(log);
  await again();
});

Deno.test("lockLog() takes over a lock file that no process holds (an append killed outright)", async () => {
  const dir = await tempDir({ prefix: "bitaudit-lock-" });
  const log = `${dir}/claims.jsonl`;
  const mod = new URL("../../src/cli/commands/claims_log_lock.ts", import.meta.url).href;
  // A child takes the lock, says so, and is killed with SIGKILL: no handler runs, the file stays.
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { lockLog } from "${mod}";
       await lockLog(Deno.args[0]);
       console.log("locked");
       await new Promise(() => setInterval(() => {}, 1000));`,
      log,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /locked/);
  await assert.rejects(lockLog(log), /held by process/);
  child.kill("SIGKILL");
  await child.status;
  reader.releaseLock();
  await child.stdout.cancel();
  assert.match(await Deno.readTextFile(`${log}.lock`), /^\d+\n$/, "the killed child's lock stays");
  // Also what earlier versions left (a plain file naming a process): nobody holds it either.
  const unlock = await lockLog(log);
  assert.equal(await Deno.readTextFile(`${log}.lock`), `${Deno.pid}\n`);
  await unlock();
  await Deno.writeTextFile(`${log}.lock`, "1\n");
  const again = await lockLog(log);
  await again();
  await assert.rejects(Deno.stat(`${log}.lock`), Deno.errors.NotFound);
});

Deno.test("lockLog() never follows a link in the lock's place, nor writes through it", async () => {
  const dir = await tempDir({ prefix: "bitaudit-lock-" });
  const log = `${dir}/claims.jsonl`;
  const target = `${dir}/precious.txt`;
  await Deno.writeTextFile(target, "keep me\n");
  await Deno.symlink(target, `${log}.lock`);
  await assert.rejects(lockLog(log), (e: Error) => {
    assert.equal((e as { code?: string }).code, "OUTPUT_WRITE");
    assert.match(e.message, /is not a plain file/);
    return true;
  });
  assert.equal(await Deno.readTextFile(target), "keep me\n");
  assert.ok((await Deno.lstat(`${log}.lock`)).isSymlink, "the link is left as it was");
  await Deno.remove(`${log}.lock`);
  await Deno.mkdir(`${log}.lock`);
  await assert.rejects(lockLog(log), /is not a plain file/);
});

Deno.test("lockLog() refuses a lock name that is a hard link, and never writes through it", async () => {
  const dir = await tempDir({ prefix: "bitaudit-lock-" });
  const log = `${dir}/claims.jsonl`;
  const target = `${dir}/precious.txt`;
  await Deno.writeTextFile(target, "keep me\n");
  await Deno.link(target, `${log}.lock`);
  await assert.rejects(lockLog(log), (e: Error) => {
    assert.equal((e as { code?: string }).code, "OUTPUT_WRITE");
    assert.match(e.message, /hard link/);
    return true;
  });
  assert.equal(await Deno.readTextFile(target), "keep me\n");
  // Nor the log itself under the lock's name.
  await Deno.remove(`${log}.lock`);
  await Deno.writeTextFile(log, "the log\n");
  await Deno.link(log, `${log}.lock`);
  await assert.rejects(lockLog(log), /hard link/);
  assert.equal(await Deno.readTextFile(log), "the log\n");
});

Deno.test("lockLog() gives a new lock the shared log's mode and group, so its other users can take it", async () => {
  const { log, gid } = await sharedLog("bitaudit-lock-");
  const mod = new URL("../../src/cli/commands/claims_log_lock.ts", import.meta.url).href;
  // Under a umask that narrows new files to 0644, the child takes the lock and reports it.
  const r = await new Deno.Command("bash", {
    args: [
      "-c",
      `umask 022; exec "$0" eval "$1" "$2"`,
      Deno.execPath(),
      `import { lockLog } from "${mod}";
       const log = Deno.args[0];
       const unlock = await lockLog(log);
       const info = await Deno.stat(log + ".lock");
       console.log((info.mode & 0o777).toString(8), info.gid);
       await unlock();`,
      log,
    ],
  }).output();
  const out = new TextDecoder().decode(r.stdout).trim();
  assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
  assert.equal(out, `664 ${gid}`);
});

Deno.test({
  name:
    "lockLog() takes a lock left behind that this user may only read (another user's, on a shared log)",
  // chattr +i stands for another user's file where the tests run as root (which may write any).
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const dir = await tempDir({ prefix: "bitaudit-lock-" });
    const log = `${dir}/claims.jsonl`;
    const lock = `${log}.lock`;
    await Deno.writeTextFile(lock, "4242\n");
    const asRoot = (await Deno.stat(lock)).uid === 0;
    const protect = async (on: boolean) => {
      if (!asRoot) return await Deno.chmod(lock, on ? 0o444 : 0o644);
      const r = await new Deno.Command("chattr", { args: [on ? "+i" : "-i", lock] }).output();
      assert.equal(r.code, 0, `chattr: ${new TextDecoder().decode(r.stderr)}`);
    };
    await protect(true);
    try {
      const unlock = await lockLog(log);
      // Held through a read-only handle: a second taker is refused, naming the last writer.
      await assert.rejects(lockLog(log), /held by process 4242 /);
      await unlock();
    } finally {
      await protect(false);
    }
  },
});

Deno.test("lockLog() takes the lock of a log whose name leaves no room for '.lock' under a shortened stem (review h103)", async () => {
  const dir = await tempDir({ prefix: "bitaudit-lock-" });
  const name = "c".repeat(252); // `<name>.lock` would be 257 bytes
  const log = `${dir}/${name}`;
  await Deno.writeTextFile(log, "");
  const unlock = await lockLog(log);
  assert.ok((await Deno.stat(`${dir}/${tempStem(name)}.lock`)).isFile);
  await unlock();
});

Deno.test("lockLog() refuses a file at the lock's name that no append wrote, and leaves it as it was", async () => {
  const dir = await tempDir({ prefix: "bitaudit-lock-" });
  const log = `${dir}/claims.jsonl`;
  for (const notes of ["my notes\n", "12345678901\n", "42\n43\n", "\n"]) {
    await Deno.writeTextFile(`${log}.lock`, notes);
    await assert.rejects(lockLog(log), (e: Error) => {
      assert.equal((e as { code?: string }).code, "LOG_LOCKED");
      assert.ok(e.message.includes(`'${log}.lock' holds something no append wrote`), e.message);
      return true;
    });
    assert.equal(await Deno.readTextFile(`${log}.lock`), notes, "neither truncated nor removed");
  }
  // What an append writes there (its process id, or nothing yet) is taken over.
  for (const left of ["", "4242", "4242\n"]) {
    await Deno.writeTextFile(`${log}.lock`, left);
    const unlock = await lockLog(log);
    assert.equal(await Deno.readTextFile(`${log}.lock`), `${Deno.pid}\n`);
    await unlock();
  }
});

Deno.test("replaceLog(): an interrupt once the new log is in place, before the append is reported, says the record was appended", async () => {
  const dir = await tempDir({ prefix: "bitaudit-log-" });
  const log = `${dir}/claims.jsonl`;
  const mod = new URL("../../src/cli/commands/claims_append_log.ts", import.meta.url).href;
  // The child replaces the log, then is interrupted before it reports (and forgets the note).
  const r = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { readLogForAppend, replaceLog } from "${mod}";
       const log = Deno.args[0];
       const read = await readLogForAppend(log);
       await replaceLog(log, { text: "the new line\\n", read, appended: "record 0 was appended\\u001b[2J" });
       Deno.kill(Deno.pid, "SIGINT");
       await new Promise((r) => setTimeout(r, 10_000));`,
      log,
    ],
  }).output();
  assert.equal(r.code, 130);
  assert.equal(new TextDecoder().decode(r.stderr), "record 0 was appended\\u{1b}[2J\n");
  assert.equal(await Deno.readTextFile(log), "the new line\n");
  // The log changed meanwhile: nothing was appended, and an interrupt says nothing of it.
  const other = `${dir}/other.jsonl`;
  const read = await readLogForAppend(other);
  await Deno.writeTextFile(other, "another program's line\n");
  await assert.rejects(
    replaceLog(other, { text: "x\n", read, appended: "not said" }),
    (e: Error) => (e as { code?: string }).code === "LOG_CHAIN",
  );
});

Deno.test("lockLog(): letting go removes only the lock file held, never a folder or another file put at its name", async () => {
  const dir = await tempDir({ prefix: "bitaudit-lock-" });
  const log = `${dir}/claims.jsonl`;
  const lock = `${log}.lock`;
  for (const theirs of ["folder", "file"] as const) {
    const unlock = await lockLog(log);
    // The name taken away while held, and someone's folder (with a file) or file put there.
    await Deno.rename(lock, `${dir}/moved-${theirs}`);
    if (theirs === "folder") {
      await Deno.mkdir(lock);
      await Deno.writeTextFile(`${lock}/notes`, "mine");
    } else await Deno.writeTextFile(lock, "");
    await unlock();
    if (theirs === "folder") assert.equal(await Deno.readTextFile(`${lock}/notes`), "mine");
    else assert.equal(await Deno.readTextFile(lock), "");
    await Deno.remove(lock, { recursive: true });
  }
});
