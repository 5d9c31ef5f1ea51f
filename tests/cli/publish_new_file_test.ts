/**
 * A new file is published under its name without ever replacing what is there, even a file that
 * appeared a moment before (two runs writing one path: one writes, the other is OUTPUT_EXISTS);
 * an interrupt while it is being published leaves nothing of it; a key pair's cleanup never takes
 * away another run's key; and a path with `..` (`lnk/../x`) is written, checked and removed at
 * its normalised text alone, never at the file the system would resolve it to.
 */
import assert from "node:assert/strict";
import { writeNewFile } from "../../src/cli/write_new_file.ts";
import { generateKeys } from "../../src/cli/commands/key.ts";
import {
  decodePrivateKeyPem,
  decodePublicKeyPem,
  publicKeyFromPrivate,
} from "../../src/attest/mod.ts";
import { InputError } from "../../src/errors.ts";
import { isCode } from "../_assert_code.ts";
import { tempDir } from "../_temp.ts";
import { untilReady } from "../_child_ready.ts";

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

/** Of two calls raced on one output, exactly one wrote and the other was refused OUTPUT_EXISTS. */
function oneWrote<T>(both: PromiseSettledResult<T>[], what: string): number {
  const wrote = both.findIndex((r) => r.status === "fulfilled");
  assert.equal(both.filter((r) => r.status === "fulfilled").length, 1, `${what}: one writes`);
  const refused = both[1 - wrote] as PromiseRejectedResult;
  assert.ok(isCode(InputError, "OUTPUT_EXISTS")(refused.reason), `${what}: ${refused.reason}`);
  return wrote;
}

Deno.test("two writers of one new path: one writes, the other is OUTPUT_EXISTS and replaces nothing", async () => {
  const dir = await tempDir({ prefix: "bitaudit-publish-" });
  for (let i = 0; i < 20; i++) {
    const path = `${dir}/out${i}.json`;
    const both = await Promise.allSettled([writeNewFile(path, "A"), writeNewFile(path, "B")]);
    const wrote = oneWrote(both, path);
    assert.equal(await Deno.readTextFile(path), wrote === 0 ? "A" : "B");
  }
  assert.equal((await names(dir)).length, 20, "no temporary file left");
});

Deno.test("two key generations at one prefix: one writes a matching pair, the other nothing", async () => {
  const dir = await tempDir({ prefix: "bitaudit-publish-" });
  for (let i = 0; i < 8; i++) {
    const prefix = `${dir}/k${i}`;
    const both = await Promise.allSettled([generateKeys(prefix), generateKeys(prefix)]);
    const wrote = oneWrote(both, prefix);
    const { keyid } = (both[wrote] as PromiseFulfilledResult<{ keyid: string }>).value;
    const priv = decodePrivateKeyPem(await Deno.readTextFile(`${prefix}.key`));
    const pub = decodePublicKeyPem(await Deno.readTextFile(`${prefix}.pub`));
    assert.deepEqual(await publicKeyFromPrivate(priv), pub, `${prefix}: the pair matches`);
    const ids = both.map((r) => r.status === "fulfilled" ? r.value.keyid : "");
    assert.equal(ids[wrote], keyid);
  }
  assert.equal((await names(dir)).length, 16, "the pairs, and no temporary file");
});

Deno.test("generateKeys(): a failed public half takes away this run's key only, never another file under its name", async () => {
  const dir = await tempDir({ prefix: "bitaudit-publish-" });
  // While the public half is written, the private key's name comes to hold another file (the
  // user removed this run's key and put theirs there): the failing run must leave it alone.
  const failing: typeof writeNewFile = async (path, data, o) => {
    if (!path.endsWith(".pub")) return await writeNewFile(path, data, o);
    await Deno.remove(`${dir}/k.key`);
    await Deno.writeTextFile(`${dir}/k.key`, "another key");
    throw new InputError("OUTPUT_WRITE", `Cannot write '${path}': full`);
  };
  await assert.rejects(generateKeys(`${dir}/k`, failing), /full/);
  assert.equal(await Deno.readTextFile(`${dir}/k.key`), "another key");
});

/**
 * Runs `call` (a statement using `writeNewFile` or `generateKeys`) in a child process whose
 * file publishing (`Deno.link`, `Deno.rename`) stops right after its `nth` publish has put the
 * file in place; sends SIGTERM there and returns the exit code.
 */
async function interruptedAfterPublish(call: string, nth: number): Promise<number> {
  const src = (p: string) => new URL(`../../src/cli/${p}`, import.meta.url).href;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { writeNewFile } from "${src("write_new_file.ts")}";
       import { generateKeys } from "${src("commands/key.ts")}";
       let n = 0;
       for (const op of ["link", "rename"]) {
         const real = Deno[op];
         Deno[op] = async (from, to) => {
           await real(from, to);
           if (++n !== ${nth}) return;
           console.log("ready");
           await new Promise((r) => setTimeout(r, 60_000));
         };
       }
       ${call};`,
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const out = await untilReady(child);
  assert.ok(out.includes("ready"), "the child reached the publish");
  child.kill("SIGTERM");
  const { code } = await child.status;
  await child.stdout.cancel();
  return code;
}

Deno.test("an interrupt while a new file is published leaves nothing of it: a rerun can write it", async () => {
  const dir = await tempDir({ prefix: "bitaudit-publish-" });
  await Deno.mkdir(`${dir}/rep`);
  const code = await interruptedAfterPublish(`await writeNewFile("${dir}/rep/report.md", "x")`, 1);
  assert.equal(code, 143);
  assert.deepEqual(await names(`${dir}/rep`), []);
});

Deno.test("key generate interrupted while either half is published leaves neither", async () => {
  for (const nth of [1, 2]) {
    const dir = await tempDir({ prefix: "bitaudit-publish-" });
    const code = await interruptedAfterPublish(`await generateKeys("${dir}/x")`, nth);
    assert.equal(code, 143);
    assert.deepEqual(await names(dir), [], `interrupted at publish ${nth}`);
  }
});

Deno.test("a path through a link and .. is written at its normalised text, leaving no temporary file and never touching the file the system would resolve it to", async () => {
  // Deno resolves `..` by the text for a write when permissions are given by path (the CLI's
  // --allow-read --allow-write) but by the file system for a removal: unnormalised, the write
  // went to `x`, its temporary name stayed, and a cleanup removed `elsewhere/x`.
  const dir = await tempDir({ prefix: "bitaudit-publish-" });
  await Deno.mkdir(`${dir}/elsewhere/d`, { recursive: true });
  await Deno.symlink(`${dir}/elsewhere/d`, `${dir}/lnk`);
  await Deno.writeTextFile(`${dir}/elsewhere/x.json`, "user's");
  await writeNewFile(`${dir}/lnk/../x.json`, "1");
  assert.equal(await Deno.readTextFile(`${dir}/x.json`), "1");
  await generateKeys(`${dir}/lnk/../k`);
  assert.deepEqual(await names(`${dir}/elsewhere`), ["d", "x.json"]);
  assert.deepEqual(await names(dir), ["elsewhere", "k.key", "k.pub", "lnk", "x.json"]);
  // And one that exists there is refused.
  await assert.rejects(
    writeNewFile(`${dir}/lnk/../x.json`, "2"),
    isCode(InputError, "OUTPUT_EXISTS"),
  );
  assert.equal(await Deno.readTextFile(`${dir}/elsewhere/x.json`), "user's");
});

Deno.test("generateKeys() through lnk/..: a failed public half removes this run's key, not the key the system resolves the name to", async () => {
  const dir = await tempDir({ prefix: "bitaudit-publish-" });
  await Deno.mkdir(`${dir}/elsewhere/d`, { recursive: true });
  await Deno.symlink(`${dir}/elsewhere/d`, `${dir}/lnk`);
  await Deno.writeTextFile(`${dir}/elsewhere/k.key`, "the user's own key");
  const failPub: typeof writeNewFile = (p, d, o) =>
    p.endsWith(".pub") ? Promise.reject(new Error("disk full")) : writeNewFile(p, d, o);
  await assert.rejects(generateKeys(`${dir}/lnk/../k`, failPub), /disk full/);
  assert.equal(await Deno.readTextFile(`${dir}/elsewhere/k.key`), "the user's own key");
  assert.deepEqual(await names(dir), ["elsewhere", "lnk"], "neither this run's key nor a temp");
});

Deno.test("a failed write through new folders named with .. removes the folders it created", async () => {
  const dir = await tempDir({ prefix: "bitaudit-publish-" });
  const long = "n".repeat(300); // longer than a file name may be (ENAMETOOLONG)
  await assert.rejects(
    writeNewFile(`${dir}/gone/a/../b/${long}`, "x"),
    isCode(InputError, "OUTPUT_WRITE"),
  );
  assert.deepEqual(await names(dir), []);
});

Deno.test("on a file system without hard links a new file is still written (renamed onto its checked name), and an existing one still refused", async () => {
  const dir = await tempDir({ prefix: "bitaudit-publish-nolink-" });
  const link = Deno.link;
  // FAT and exFAT refuse link(2) with EPERM.
  Object.defineProperty(Deno, "link", {
    value: () => Promise.reject(new Deno.errors.PermissionDenied("Operation not permitted")),
    configurable: true,
    writable: true,
  });
  try {
    await writeNewFile(`${dir}/a.json`, "A");
    assert.equal(await Deno.readTextFile(`${dir}/a.json`), "A");
    await assert.rejects(
      () => writeNewFile(`${dir}/a.json`, "B"),
      isCode(InputError, "OUTPUT_EXISTS"),
    );
    assert.equal(await Deno.readTextFile(`${dir}/a.json`), "A");
    assert.deepEqual(await names(dir), ["a.json"]);
  } finally {
    Object.defineProperty(Deno, "link", { value: link, configurable: true, writable: true });
  }
});

Deno.test("a link refused for another reason than a file system without hard links is OUTPUT_WRITE and publishes nothing", async () => {
  const dir = await tempDir({ prefix: "bitaudit-publish-linkerr-" });
  const link = Deno.link;
  const failing = (e: Error) => {
    Object.defineProperty(Deno, "link", {
      value: () => Promise.reject(e),
      configurable: true,
      writable: true,
    });
  };
  const coded = <E extends Error>(e: E, code: string) => Object.assign(e, { code });
  // What Deno raises for EACCES (the same class as EPERM), ENOENT and EMLINK.
  const refused = [
    coded(new Deno.errors.PermissionDenied("Permission denied (os error 13): link"), "EACCES"),
    new Deno.errors.PermissionDenied("Permission denied (os error 13): link"),
    coded(new Deno.errors.NotFound("No such file or directory (os error 2): link"), "ENOENT"),
    coded(new Error("Too many links (os error 31): link"), "EMLINK"),
  ];
  // A file system without hard links: EPERM, or the operation not supported.
  const fallback = [
    coded(new Deno.errors.PermissionDenied("Operation not permitted (os error 1): link"), "EPERM"),
    new Deno.errors.PermissionDenied("Operation not permitted (os error 1): link"),
    new Deno.errors.NotSupported("Operation not supported (os error 95): link"),
  ];
  try {
    for (const [i, e] of refused.entries()) {
      failing(e);
      await assert.rejects(
        () => writeNewFile(`${dir}/r${i}.json`, "R"),
        (err) =>
          isCode(InputError, "OUTPUT_WRITE")(err) && (err as Error).message.includes(e.message),
      );
    }
    assert.deepEqual(await names(dir), [], "nothing renamed into place, no temporary left");
    for (const [i, e] of fallback.entries()) {
      failing(e);
      await writeNewFile(`${dir}/f${i}.json`, "F");
    }
    assert.deepEqual(await names(dir), ["f0.json", "f1.json", "f2.json"]);
  } finally {
    Object.defineProperty(Deno, "link", { value: link, configurable: true, writable: true });
  }
});
