/// <reference lib="dom" />
/**
 * Drives the checker page in headless Chromium (Debian's package, `deno task browser:install`)
 * with playwright-core: writes the page with `bitaudit page`, opens it from file://, picks the
 * files and reads back what a person would see. Reads the cases as JSON on stdin, prints the
 * results as JSON (see `driveChecker`).
 */
import { type Browser, chromium, type FileChooser, type Page, type Worker } from "playwright-core";
import { writePage } from "../../src/cli/commands/page.ts";
import type { PageCase, PageResult } from "./_checker_browser.ts";
import { tempDir } from "../_temp.ts";

/** Where the browser is (as tools/web/ensure_chromium.ts installs it). */
const CHROMIUM = Deno.env.get("CHROMIUM") ?? "/usr/bin/chromium";

/** A launched browser with the page written to a temporary folder. */
export interface CheckerBrowser {
  browser: Browser;
  /** The page from disk. */
  url: string;
  /** The same folder from a static file server on 127.0.0.1 (no server logic). */
  httpUrl: string;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};

/**
 * Launches Chromium, writes the page, and serves its folder as any static host would. `close`
 * removes the folder (and the driver's exit does, should `close` not be reached).
 */
export async function openChecker(): Promise<CheckerBrowser> {
  const root = await tempDir({ prefix: "bitaudit-site-" });
  const site = `${root}/site`;
  await writePage(site);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const name = new URL(req.url).pathname.slice(1);
    const type = TYPES[name.split(".").pop() ?? ""];
    if (!/^[a-z]+\.[a-z]+$/.test(name) || type === undefined) {
      return new Response("not found", { status: 404 });
    }
    const body = await Deno.readFile(`${site}/${name}`).catch(() => null);
    return body === null
      ? new Response("not found", { status: 404 })
      : new Response(body, { headers: { "content-type": type } });
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  return {
    browser,
    url: `file://${site}/index.html`,
    httpUrl: `http://127.0.0.1:${server.addr.port}/index.html`,
    close: async () => {
      await browser.close();
      await server.shutdown();
      await Deno.remove(root, { recursive: true });
    },
  };
}

/**
 * Checks files in a fresh page.
 *
 * @param c the browser
 * @param files paths for the three inputs (log optional)
 * @param shot when given, a PNG screenshot of the page is written there
 * @param http open the page from the static server instead of file://
 * @param keyboard reach the drop zone with Tab and choose all files at once from its chooser
 * @param stopWith once the first check reports the claim log's progress, choose this file as the
 *   claim log (which stops that check), then check again
 */
export async function checkInPage(
  c: CheckerBrowser,
  files: PageCase["files"],
  shot?: string,
  http = false,
  keyboard = false,
  stopWith?: string,
): Promise<PageResult> {
  const page: Page = await c.browser.newPage({ viewport: { width: 860, height: 700 } });
  const requests: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  // The workers the page starts (one per check), and those that have ended.
  const workers: Worker[] = [];
  let ended = 0;
  page.on("worker", (w) => {
    workers.push(w);
    w.on("close", () => ended++);
  });
  try {
    const url = http ? c.httpUrl : c.url;
    await page.goto(url);
    // Inputs found by their accessible names (as a screen reader announces them), the check
    // started from the keyboard.
    let dropZone: PageResult["dropZone"];
    if (keyboard) dropZone = await _chooseByKeyboard(page, files);
    else {
      await page.getByLabel(/^Attestation/).setInputFiles(files.attestation);
      await page.getByLabel(/^Trust root/).setInputFiles(files.trustRoot);
      if (files.log) await page.getByLabel(/^Claim log/).setInputFiles(files.log);
      if (files.timestamp) {
        await page.getByLabel(/^RFC 3161 timestamp/).setInputFiles(files.timestamp);
      }
    }
    // The page sorts chosen files asynchronously: wait until it enabled the check or said why not.
    await page.waitForFunction(() =>
      !(document.getElementById("check") as HTMLButtonElement).disabled ||
      document.getElementById("drop-note")?.textContent !== ""
    );
    const dropNote = await page.evaluate(() =>
      document.getElementById("drop-note")?.textContent ?? ""
    );
    if (await page.locator("#check").isDisabled()) {
      const chosen = await page.evaluate(() =>
        ["attestation", "trustRoot", "log", "timestamp"].map((id) =>
          document.getElementById(`${id}-chosen`)?.textContent ?? ""
        )
      );
      return {
        state: "not-run",
        headline: "",
        verdict: "",
        verdictClass: "",
        colors: { headline: "", verdict: "" },
        chosen,
        checks: [],
        text: "",
        foreign: 0,
        pwned: false,
        focused: "",
        dropNote,
        workers: workers.length,
        ...(dropZone === undefined ? {} : { dropZone }),
      };
    }
    await page.getByRole("button", { name: "Check the attestation" }).focus();
    await page.keyboard.press("Enter");
    let stopped: PageResult["stopped"];
    if (stopWith !== undefined) {
      await page.waitForFunction(() =>
        /claim log: [\d,]+ of [\d,]+ records read/.test(
          document.getElementById("result")?.textContent ?? "",
        )
      );
      const running = workers.length - ended;
      await page.getByLabel(/^Claim log/).setInputFiles(stopWith);
      await page.waitForFunction(() =>
        !(document.getElementById("check") as HTMLButtonElement).disabled
      );
      // The page ends the worker at once; playwright hears of it a moment later.
      for (let i = 0; i < 50 && ended === 0; i++) await new Promise((r) => setTimeout(r, 100));
      stopped = {
        running,
        endedAfter: ended,
        result: await page.evaluate(() => document.getElementById("result")?.textContent ?? ""),
      };
      await page.getByRole("button", { name: "Check the attestation" }).click();
    }
    // The page verifies the whole log in its worker: on a host loaded by the rest of the suite that
    // has taken past playwright's default 30 s.
    await page.waitForSelector("#result[data-state]", { timeout: 180_000 });
    if (shot) await page.screenshot({ path: shot, fullPage: true });
    // The worker's script comes from a blob: URL the page made from its own script.
    const offsite = requests.filter((u) =>
      !u.startsWith(url.replace(/index\.html$/, "")) && !u.startsWith("blob:")
    );
    if (offsite.length > 0) throw new Error(`the page requested ${offsite.join(", ")}`);
    return await page.evaluate(() => {
      const out = document.getElementById("result")!;
      const own = new Set([
        "H2",
        "UL",
        "LI",
        "DL",
        "DT",
        "DD",
        "CODE",
        "TABLE",
        "CAPTION",
        "THEAD",
        "TBODY",
        "TR",
        "TH",
        "TD",
        "DETAILS",
        "SUMMARY",
        "P",
      ]);
      const verdict = out.querySelector<HTMLElement>("#verdict");
      const color = (e: Element | null) => e === null ? "" : getComputedStyle(e).color;
      const table = [...out.querySelectorAll("table")].find((t) =>
        t.caption?.textContent === "Named checks"
      );
      return {
        state: out.dataset.state ?? "",
        headline: out.querySelector("h2")?.textContent ?? "",
        verdict: verdict?.textContent ?? "",
        verdictClass: verdict?.className ?? "",
        colors: { headline: color(out.querySelector("h2")), verdict: color(verdict) },
        chosen: ["attestation", "trustRoot", "log", "timestamp"].map((id) =>
          document.getElementById(`${id}-chosen`)?.textContent ?? ""
        ),
        checks: [...table?.tBodies[0]?.rows ?? []].map((r) =>
          [...r.cells].map((c) => c.textContent ?? "")
        ),
        text: out.textContent ?? "",
        foreign: [...out.querySelectorAll("*")].filter((e) => !own.has(e.tagName)).length,
        pwned: "pwned" in globalThis,
        focused: document.activeElement?.id ?? "",
      };
    }).then((r) => ({
      ...r,
      dropNote,
      workers: workers.length,
      ...(dropZone === undefined ? {} : { dropZone }),
      ...(stopped === undefined ? {} : { stopped }),
    }));
  } finally {
    await page.close();
  }
}

/**
 * The keyboard-only way in: Tab until the drop zone (a button by role and name) has the focus,
 * then Enter opens the file chooser, and Space does too; the trust root goes in its own field.
 */
async function _chooseByKeyboard(
  page: Page,
  files: PageCase["files"],
): Promise<PageResult["dropZone"]> {
  // One listener for the whole walk: playwright intercepts choosers only while one is attached,
  // and switching that on again for each `waitForEvent` races the key press.
  let chosen: ((c: FileChooser) => void) | undefined;
  page.on("filechooser", (c) => chosen?.(c));
  const zone = page.getByRole("button", { name: /^Or drop the files here, or choose several/ });
  for (let tabs = 0; !(await zone.evaluate((e) => e === document.activeElement)); tabs++) {
    if (tabs === 10) throw new Error("Tab never reached the drop zone");
    await page.keyboard.press("Tab");
  }
  const outline = await zone.evaluate((e) => {
    const s = getComputedStyle(e);
    return `${s.outlineStyle} ${s.outlineWidth}`;
  });
  // Everything but the trust root (unless the case drops it too), which the page takes only from
  // its own field (yours, never one that came with the attestation).
  const paths = [
    files.attestation,
    ...(files.dropRoot ? [files.trustRoot] : []),
    ...(files.log ? [files.log] : []),
    ...(files.timestamp ? [files.timestamp] : []),
    ...(files.extra ?? []),
  ];
  // The trust root first: a drop after it must not replace it (the attack: a folder sent with
  // the attestation holding its own trust root). With `dropRoot`, only the drop holds one.
  if (!files.dropRoot) await page.getByLabel(/^Trust root/).setInputFiles(files.trustRoot);
  // A log chosen in its own field first: a drop after it must not replace it either.
  if (files.handLog) await page.getByLabel(/^Claim log/).setInputFiles(files.handLog);
  const keys: string[] = [];
  for (const key of ["Enter", "Space"]) {
    const opened = new Promise<FileChooser | null>((done) => {
      chosen = done;
      setTimeout(() => done(null), 5000);
    });
    await page.keyboard.press(key);
    const chooser = await opened;
    if (chooser === null) continue;
    if (chooser.isMultiple()) keys.push(key);
    await chooser.setFiles(paths);
  }
  return { outline, keys };
}

if (import.meta.main) {
  const cases: PageCase[] = JSON.parse(await new Response(Deno.stdin.readable).text());
  const c = await openChecker();
  try {
    const results = [];
    for (const k of cases) {
      results.push(await checkInPage(c, k.files, k.shot, k.http, k.keyboard, k.stopWith));
    }
    console.log(JSON.stringify(results));
  } finally {
    await c.close();
  }
}
