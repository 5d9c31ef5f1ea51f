/**
 * A prover's string in report.md renders as the text it is under two real Markdown renderers
 * (micromark with GFM, markdown-it with linkify): no link, no emphasis, no HTML, nothing lost.
 */
import assert from "node:assert/strict";
import { micromark } from "micromark";
import { gfm, gfmHtml } from "micromark-extension-gfm";
import MarkdownIt from "markdown-it";
import { escapeForTerminal, escapeMarkdown } from "../../src/escape_text.ts";

const linkify = new MarkdownIt({ linkify: true });

const HOSTILE = [
  "re-run at https://evil.example/fix?key=1 now",
  "HTTP://EVIL.EXAMPLE",
  "ftp://evil.example/x",
  "www.evil.example/path",
  "Www.Evil.example",
  "mail bob@evil.example",
  "mailto:bob@evil.example",
  "xmpp:bob@evil.example/x",
  "evil.com/path and evil.io",
  "<https://evil.example>",
  "[ok](https://evil.example)",
  "![x](https://evil.example/p.png)",
  "<img src=x onerror=alert(1)>",
  "&lt;b&gt; &#x41;",
  "*strong* _em_ ~~del~~ `code`",
  "model Qwen3-0.6B: config.json @ 3.5 GB",
];

/** The visible text of rendered HTML (tags dropped, the few entities the renderers emit decoded). */
function visible(html: string): string {
  return html.replace(/<[^>]*>/g, "").replace(/&quot;/g, '"').replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">").replace(/&amp;/g, "&").trim();
}

for (const text of HOSTILE) {
  Deno.test(`report Markdown: ${JSON.stringify(text)} renders literally, without a link`, () => {
    const md = `- reason: ${escapeMarkdown(text)}`;
    const byGfm = micromark(md, { extensions: [gfm()], htmlExtensions: [gfmHtml()] });
    const byLinkify = linkify.render(md);
    for (const html of [byGfm, byLinkify]) {
      assert.doesNotMatch(html, /<a |<img |<em>|<strong>|<del>|<code>/, html);
      assert.equal(visible(html), `reason: ${escapeForTerminal(text)}`);
    }
  });
}

Deno.test("report Markdown: without the full stop, colon and at sign escaped, a link appears", () => {
  // The renderers do link these (so the test above can fail): the punctuation escaping alone
  // leaves the URL's characters as they are.
  const md = `- reason: ${"https://evil.example/x".replace(/[\\`*_{}[\]()#!|<>~&]/g, "\\$&")}`;
  assert.match(micromark(md, { extensions: [gfm()], htmlExtensions: [gfmHtml()] }), /<a /);
  assert.match(linkify.render(md), /<a /);
});
