/**
 * The README stays a short entry page, and the README and `docs/` link only to what exists: every
 * relative link names an existing file, and every `#anchor` into a Markdown page names one of its
 * headings.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

/** The README's size limit: 15 KiB. */
const README_MAX_BYTES = 15_360;

/** The README and every page of docs/, as paths relative to the repository root. */
async function pages(): Promise<string[]> {
  const out = ["README.md"];
  for await (const e of Deno.readDir(new URL("docs/", ROOT))) {
    if (e.isFile && e.name.endsWith(".md")) out.push(`docs/${e.name}`);
  }
  return out.sort();
}

/** Text outside fenced code blocks and code spans (links there are not links). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/** Link targets of a Markdown text: inline links and images. */
function links(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replaceAll(" ", "-");
}

/** The anchors of a Markdown page (a repeated heading gets -1, -2, ...). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

Deno.test("README.md is at most 15,360 bytes", async () => {
  const size = (await Deno.stat(new URL("README.md", ROOT))).size;
  assert.ok(size <= README_MAX_BYTES, `README.md is ${size} bytes; move detail to docs/`);
});

Deno.test("every relative link of README.md and docs/*.md names an existing file and heading", async () => {
  const broken: string[] = [];
  for (const page of await pages()) {
    const base = new URL(page, ROOT);
    const text = await Deno.readTextFile(base);
    for (const target of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: and the like
      const [path, anchor] = target.split("#", 2) as [string, string | undefined];
      const file = path === "" ? base : new URL(path, base);
      let body: string;
      try {
        const info = await Deno.stat(file);
        if (anchor === undefined || !info.isFile || !file.pathname.endsWith(".md")) continue;
        body = path === "" ? text : await Deno.readTextFile(file);
      } catch {
        broken.push(`${page}: ${target} (no such file)`);
        continue;
      }
      if (!anchors(body).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});

Deno.test("prose lines of README.md and docs/*.md are at most 100 characters", async () => {
  const long: string[] = [];
  for (const page of await pages()) {
    let fenced = false;
    (await Deno.readTextFile(new URL(page, ROOT))).split("\n").forEach((line, i) => {
      if (line.startsWith("```")) fenced = !fenced;
      if (fenced || line.length <= 100 || line.startsWith("|")) return; // tables may be wider
      // A line that is one unbreakable piece (a long code span or link, after a list marker)
      // cannot be wrapped.
      const body = line.replace(/^\s*(?:[-*]|\d+\.)?\s*/, "");
      if (!/\s/.test(body.replace(/`[^`]*`|\[[^\]]*\]\([^)]*\)/g, "x"))) return;
      long.push(`${page}:${i + 1}: ${line.length} characters`);
    });
  }
  assert.deepEqual(long, []);
});
