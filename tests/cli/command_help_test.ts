/**
 * Help that teaches (issue 29): every command's `--help` ends with an example and the exit codes
 * it can end with, and every example names options its command has.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { runCli } from "../../src/cli/main.ts";
import { COMMAND_HELP } from "../../src/cli/command_help.ts";
import { helpBlock } from "../../src/cli/help_block.ts";
import { buildCliProgram } from "../../tools/docs/gen_cli.ts";

/** `bitaudit <path> --help` in this process: what it prints, its exit code. */
async function helpOf(path: string): Promise<{ text: string; code: number }> {
  const write = process.stdout.write;
  let text = "";
  process.stdout.write = ((s: string | Uint8Array) => {
    text += typeof s === "string" ? s : new TextDecoder().decode(s);
    return true;
  }) as typeof process.stdout.write;
  try {
    const code = await runCli([...path.split(" ").filter((w) => w !== ""), "--help"]);
    return { text, code };
  } finally {
    process.stdout.write = write;
  }
}

/** The lines of one section of a help text (`Commands:`, `Options:`). */
function section(text: string, title: string): string[] {
  const lines = text.split("\n");
  const from = lines.indexOf(`${title}:`);
  if (from < 0) return [];
  const to = lines.findIndex((l, i) => i > from && l === "");
  return lines.slice(from + 1, to < 0 ? undefined : to);
}

/** Every command path and its help, found from the top-level help down. */
async function allHelp(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const visit = async (path: string) => {
    const { text, code } = await helpOf(path);
    assert.equal(code, 0, `'${path} --help' exits 0`);
    found.set(path, text);
    for (const line of section(text, "Commands")) {
      const name = /^ {2}([a-z][a-z-]*)/.exec(line)?.[1];
      if (name !== undefined && name !== "help") await visit(`${path} ${name}`.trim());
    }
  };
  await visit("");
  return found;
}

const HELP = await allHelp();

Deno.test("every command's --help shows an example and its exit codes, and every entry is used", () => {
  for (const [path, text] of HELP) {
    assert.match(text, /\n\nExamples?:\n {2}\$ bitaudit /, `'${path}' shows an example`);
    assert.match(text, /\n\nExit codes:\n {2}0 {3}\S/, `'${path}' lists exit code 0`);
    assert.match(text, /\n {2}70 {2}internal error/, `'${path}' lists exit code 70`);
    assert.equal(text.split("Exit codes:").length, 2, `'${path}' has its block once`);
    for (const line of text.split("\n")) assert.ok(line.length <= 100, `'${path}': ${line}`);
  }
  assert.deepEqual([...HELP.keys()].sort(), Object.keys(COMMAND_HELP).sort());
});

Deno.test("every example names a command and only options that command has", () => {
  for (const [path, help] of Object.entries(COMMAND_HELP)) {
    for (const example of help.examples) {
      const words = example.replace(/\\\n/g, " ").split(/\s+/).slice(1);
      let at = "";
      while (words.length > 0 && HELP.has(`${at} ${words[0]}`.trim())) {
        at = `${at} ${words.shift()}`.trim();
      }
      assert.ok(at !== "" || path === "", `'${path}': '${example}' names a command`);
      const longs = new Set(
        section(HELP.get(at)!, "Options").flatMap((l) =>
          /^ {2}(?:-\w, )?(--[a-z-]+)/.exec(l)?.[1] ?? []
        ),
      );
      for (const w of words.filter((x) => x.startsWith("--"))) {
        assert.ok(longs.has(w), `'${path}': '${at}' has no option ${w}`);
      }
    }
  }
});

Deno.test("every example gives its command's required options (it runs as shown)", async () => {
  const program = await buildCliProgram();
  for (const [path, help] of Object.entries(COMMAND_HELP)) {
    for (const example of help.examples) {
      const words = example.replace(/\\\n/g, " ").split(/\s+/).slice(1);
      if (words.includes("--help")) continue;
      let cmd = program;
      while (words.length > 0) {
        const sub = cmd.commands.find((c) => c.name() === words[0]);
        if (sub === undefined) break;
        cmd = sub as typeof cmd;
        words.shift();
      }
      for (const option of cmd.options.filter((o) => o.mandatory)) {
        assert.ok(words.includes(option.long!), `'${path}': '${example}' lacks ${option.long}`);
      }
    }
  }
});

Deno.test("helpBlock() formats the examples and the exit codes in EXIT's order", () => {
  const b = helpBlock({
    examples: ["bitaudit x --a 1 \\\n--b 2"],
    exits: ["INCONCLUSIVE", "OK"],
    meanings: { OK: "done" },
  });
  assert.equal(
    b,
    [
      "",
      "Example:",
      "  $ bitaudit x --a 1 \\",
      "      --b 2",
      "",
      "Exit codes:",
      "  0   done",
      "  3   INCONCLUSIVE: nothing wrong was found, but not everything could be",
      "      verified (NOT_VERIFIED)", // wrapped at 80 columns, as commander wraps the rest
      "  4   this machine ran out of memory (no input's fault; rerun where more is",
      "      available)", // listed for every command, as INTERNAL is
      "  70  internal error: a bug in bitaudit, whatever the input (please report it)",
    ].join("\n"),
  );
  assert.throws(() => helpBlock({ examples: [], exits: ["OK"] }), RangeError);
  assert.throws(() => helpBlock({ examples: ["deno task x"], exits: ["OK"] }), RangeError);
});
