/// <reference lib="dom" />
/**
 * Turns a {@link CheckView} into DOM: plain language first, details in `<details>` sections.
 * Only `createElement` and `textContent` are used, so untrusted text cannot become markup.
 *
 * @module
 */
import type { CheckView, ViewFact } from "./view.ts";
import type { VerdictTone } from "./verdict_meaning.ts";

type Child = Node | string;

/** The sign before a verdict's line (colour is not the only carrier of its meaning). */
const VERDICT_MARK: Readonly<Record<VerdictTone, string>> = {
  passed: "✔ ",
  failed: "✖ ",
  inconclusive: "? ",
};

function _h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string>,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children); // strings become text nodes
  return e;
}

function _table(caption: string, head: readonly string[], rows: readonly (readonly string[])[]) {
  return _h(
    "table",
    {},
    _h("caption", {}, caption),
    _h("thead", {}, _h("tr", {}, ...head.map((c) => _h("th", { scope: "col" }, c)))),
    _h("tbody", {}, ...rows.map((r) => _h("tr", {}, ...r.map((c) => _h("td", {}, c))))),
  );
}

function _facts(facts: readonly ViewFact[], code: boolean) {
  return _h(
    "dl",
    {},
    ...facts.flatMap((f) => [
      _h("dt", {}, f.label),
      _h("dd", {}, code ? _h("code", {}, f.value) : f.value),
    ]),
  );
}

function _details(summary: string, ...body: Child[]) {
  return _h("details", {}, _h("summary", {}, summary), ...body);
}

/**
 * Replaces the contents of `out` with the view.
 *
 * @param out the result region (an ARIA live region)
 * @param v the view
 * @example
 * ```ts ignore
 * renderView(document.getElementById("result")!, checkView(outcome));
 * ```
 */
export function renderView(out: HTMLElement, v: CheckView): void {
  const mark = v.tone === "valid" ? "✔ " : "✖ ";
  const parts: Child[] = [
    _h("h2", { tabindex: "-1", class: v.tone, id: "headline" }, mark + v.headline),
  ];
  // The verdict is its own line in its own colour: a valid attestation of a FAILED verdict is
  // good evidence of bad claims, and the page must not paint the two as one green fact.
  if (v.verdict !== null) {
    parts.push(
      _h(
        "p",
        { class: `verdict ${v.verdict.tone}`, id: "verdict" },
        VERDICT_MARK[v.verdict.tone] + v.verdict.text,
      ),
    );
  }
  parts.push(_h("ul", { class: "summary" }, ...v.summary.map((s) => _h("li", {}, s))));
  if (v.facts.length > 0) parts.push(_facts(v.facts, false));
  if (v.kinds.length > 0) {
    parts.push(_table(
      "Sampled records per workload kind",
      ["kind", "PASS", "FAIL", "NOT_VERIFIED"],
      v.kinds.map((k) => [k.kind, String(k.PASS), String(k.FAIL), String(k.NOT_VERIFIED)]),
    ));
  }
  if (v.checks.length > 0) {
    parts.push(_details(
      "The checks (as bitaudit check prints them)",
      _table(
        "Named checks",
        ["check", "result", "detail"],
        v.checks.map((c) => [c.check, c.ok ? "ok" : "FAIL", c.detail]),
      ),
    ));
  }
  if (v.results.length > 0) {
    parts.push(_details(
      "Per-record results",
      _table(
        "Sampled records in selection order",
        [
          "index",
          "kind",
          "status",
          "reason",
          "first difference",
          "weakest evidence",
          "record digest",
        ],
        v.results.map((r) => [
          String(r.index),
          r.kind,
          r.status,
          r.reason,
          r.firstDifference,
          r.evidence,
          r.record,
        ]),
      ),
    ));
  }
  if (v.detection.length > 0) {
    parts.push(_details("Detection statement", _facts(v.detection, false)));
  }
  if (v.digests.length > 0) parts.push(_details("Digests", _facts(v.digests, true)));
  out.replaceChildren(...parts);
  out.dataset.state = v.tone;
}
