/// <reference lib="dom" />
/**
 * The browser checker page's script (bundled into `tables/web/checker.js` by
 * `deno task page:build`): reads the files a person picks (one per labelled input, or several at
 * once from the drop zone, which the keyboard opens too) or drops, runs {@link runCheck} (the
 * code `bitaudit check` runs) and shows {@link checkView}. Files are read locally with the File
 * API; nothing is sent anywhere. Every value reaches the page through `textContent`, never as
 * HTML, so text inside an attestation stays inert.
 *
 * @module
 */
import { checkView } from "./check_view.ts";
import { type CheckTexts, runCheck } from "./run_check.ts";
import { renderView } from "./render_view.ts";

/** Largest attestation or trust root read (bytes), as `bitaudit check`. */
const MAX_DOC_BYTES = 16 * 1024 * 1024;
/** Largest claim log read (bytes), as `bitaudit check`. */
const MAX_LOG_BYTES = 256 * 1024 * 1024;

type Slot = "attestation" | "trustRoot" | "log";
const SLOTS: readonly Slot[] = ["attestation", "trustRoot", "log"];
const LABEL: Record<Slot, string> = {
  attestation: "attestation",
  trustRoot: "trust root",
  log: "claim log",
};

const chosen: Partial<Record<Slot, File>> = {};

function _el<T extends HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (e === null) throw new TypeError(`Cannot start the checker: element #${id} is missing`);
  return e as T;
}

function _showChosen(): void {
  for (const slot of SLOTS) {
    const f = chosen[slot];
    _el(`${slot}-chosen`).textContent = f === undefined
      ? "none chosen"
      : `${f.name} (${f.size.toLocaleString("en")} bytes)`;
  }
  _el<HTMLButtonElement>("check").disabled = chosen.attestation === undefined ||
    chosen.trustRoot === undefined;
}

/** Recognises a dropped file by its content: envelope, trust root, or JSON Lines claim log. */
async function _classify(f: File): Promise<Slot | null> {
  const head = (await f.slice(0, 4096).text()).trimStart();
  // An envelope opens with one of its three fields; `payloadType` alone may come after a payload
  // longer than the head (`bitaudit audit` writes `payload` first).
  if (/^\{\s*"(?:payload|payloadType|signatures)"\s*:/.test(head)) return "attestation";
  if (/^\{[^]*"payloadType"/.test(head)) return "attestation";
  if (/^\{[^]*"mediaType"/.test(head)) return "trustRoot";
  if (/^\{[^]*"predicateType"/.test(head)) return "log";
  return null;
}

async function _read(slot: Slot): Promise<string | undefined> {
  const f = chosen[slot];
  if (f === undefined) return undefined;
  const max = slot === "log" ? MAX_LOG_BYTES : MAX_DOC_BYTES;
  if (f.size > max) {
    throw new RangeError(`Cannot read the ${LABEL[slot]}: ${f.size} bytes, at most ${max}`);
  }
  return await f.text();
}

async function _check(): Promise<void> {
  const out = _el("result");
  out.setAttribute("aria-busy", "true");
  out.replaceChildren(document.createTextNode("Checking…"));
  try {
    const [attestation, trustRoot, log] = await Promise.all(SLOTS.map(_read));
    const texts: CheckTexts = {
      attestation: attestation ?? "",
      trustRoot: trustRoot ?? "",
      ...(log === undefined ? {} : { log }),
    };
    renderView(out, checkView(await runCheck(texts)));
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    renderView(out, checkView({ kind: "refused", input: "attestation", code: "READ", message }));
  } finally {
    out.removeAttribute("aria-busy");
    out.querySelector("h2")?.focus();
  }
}

/** Puts dropped or chosen files into the slots their content names; names the others. */
async function _take(files: Iterable<File>): Promise<void> {
  const unknown: string[] = [];
  for (const f of files) {
    const slot = await _classify(f);
    if (slot === null) unknown.push(f.name);
    else chosen[slot] = f;
  }
  _el("drop-note").textContent = unknown.length === 0
    ? ""
    : `Not recognised (expected an attestation, a trust root or a claim log): ${
      unknown.join(", ")
    }`;
  _showChosen();
}

function _start(): void {
  for (const slot of SLOTS) {
    const input = _el<HTMLInputElement>(slot);
    input.addEventListener("change", () => {
      const f = input.files?.[0];
      if (f === undefined) delete chosen[slot];
      else chosen[slot] = f;
      _showChosen();
    });
  }
  const zone = _el("drop");
  zone.addEventListener("dragover", (e) => {
    e.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    void _take(e.dataTransfer?.files ?? []);
  });
  // The zone is also a button (for the keyboard and for a click): it opens a chooser of several
  // files, sorted into their slots by content as a drop is.
  const several = _el<HTMLInputElement>("drop-files");
  zone.addEventListener("click", () => several.click());
  zone.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" && e.key !== " ") return;
    e.preventDefault(); // Space would scroll the page
    several.click();
  });
  several.addEventListener("change", async () => {
    await _take(several.files ?? []);
    several.value = ""; // choosing the same files again is a change again
  });
  _el("form").addEventListener("submit", (e) => {
    e.preventDefault();
    void _check();
  });
  _showChosen();
}

_start();
