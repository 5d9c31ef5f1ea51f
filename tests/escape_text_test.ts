/** What the terminal and JSON escaping show of characters that hide or reorder text. */
import assert from "node:assert/strict";
import {
  escapeForTerminal,
  escapeInQuotes,
  escapeJsonText,
  quoteForTerminal,
  quoteShort,
} from "../src/escape_text.ts";
import { fieldsOf, onlyKnown } from "../src/json_fields.ts";
import { escapeHtml } from "../src/cli/escape_html.ts";

const HIDDEN = [
  ["combining grapheme joiner", "\u034f", "\\u{34f}"],
  ["Hangul filler", "\u3164", "\\u{3164}"],
  ["variation selector", "\ufe0f", "\\u{fe0f}"],
  ["tag character", "\u{e0041}", "\\u{e0041}"],
  ["supplementary variation selector", "\u{e0100}", "\\u{e0100}"],
  ["right-to-left override", "\u202e", "\\u{202e}"],
  ["Mongolian free variation selector", "\u180b", "\\u{180b}"],
  ["musical symbol format character", "\u{1d173}", "\\u{1d173}"],
  ["Arabic number sign", "\u0600", "\\u{600}"],
] as const;

for (const [what, c, shown] of HIDDEN) {
  Deno.test(`escaping shows a ${what} instead of passing it through`, () => {
    assert.equal(escapeForTerminal(`a${c}b`), `a${shown}b`);
    assert.equal(escapeHtml(`a${c}b`), `a${shown}b`, "the HTML report shows it as the terminal");
    const json = escapeJsonText(JSON.stringify({ v: `a${c}b` }));
    assert.ok(!json.includes(c), json);
    assert.equal(JSON.parse(json).v, `a${c}b`);
  });
}

Deno.test("escaping leaves ordinary text, astral letters and emoji bases as they are", () => {
  for (const t of ["Qwen3-0.6B", "日本語", "\u{1d400}", "\u{1f600}"]) {
    assert.equal(escapeForTerminal(t), t);
    assert.equal(escapeJsonText(JSON.stringify(t)), JSON.stringify(t));
  }
});

Deno.test("a short quote collapses runs of spaces only: a byte order mark, a line separator, a tab or a line break shows escaped, as an unknown field's name does", () => {
  // quoteShort had collapsed every \s, which takes U+FEFF, U+2028 and \t for a space: a value
  // holding one read as one with a plain space.
  assert.equal(quoteShort("2026-01-01T00:00:00Z\ufeff"), "'2026-01-01T00:00:00Z\\u{feff}'");
  assert.equal(quoteShort("a\u2028b\tc\nd"), "'a\\u{2028}b\\u{9}c\\u{a}d'");
  assert.equal(quoteShort("a \u00a0\u3000 b"), "'a b'");
  const key = "pt\ufeff \u00a0x\n";
  assert.throws(() => onlyKnown(fieldsOf({ [key]: 1 }, "x"), []), (e: Error) => {
    assert.equal(e.message, `Cannot read 'x.${quoteShort(key, 40).slice(1, -1)}': unknown field`);
    return true;
  });
});

/** Reads quoted text back as a reader does: a backslash takes the next character as it is, the first
 * bare `'` closes the quotes. */
function _unquote(shown: string): { text: string; rest: string } {
  assert.equal(shown[0], "'");
  let text = "";
  for (let i = 1; i < shown.length; i++) {
    if (shown[i] === "\\") text += shown[++i] ?? "";
    else if (shown[i] === "'") return { text, rest: shown.slice(i + 1) };
    else text += shown[i];
  }
  return { text, rest: "" };
}

Deno.test("inside quotes a backslash is doubled: a name ending in a backslash, or a backslash before a quote, cannot appear to close the quotes, and the text \\u{1b} does not show as an escape", () => {
  // Without the doubling, `x\` showed as 'x\' (an escaped quote: the quotes never closed) and
  // `x\' ok` as 'x\\' ok' (a quote closed after `x\`, ` ok'` outside it).
  assert.equal(quoteForTerminal("x\\"), "'x\\\\'");
  assert.equal(quoteForTerminal("x\\' ok"), "'x\\\\\\' ok'");
  assert.equal(escapeInQuotes("x\\' ok"), "x\\\\\\' ok");
  for (const name of ["x\\", "x\\'", "x\\' ok", "\\\\'", "a\\u{1b}b"]) {
    const { text, rest } = _unquote(quoteForTerminal(name));
    assert.equal(rest, "", `${name}: the quotes close at the end only`);
    assert.equal(text, name, `${name}: read back as it was`);
  }
  // The text `\u{1b}` and an ESC show differently.
  assert.notEqual(quoteForTerminal("a\\u{1b}b"), quoteForTerminal("a\u001bb"));
});
