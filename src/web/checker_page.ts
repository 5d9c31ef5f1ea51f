/// <reference lib="dom" />
/**
 * The browser checker page's script (bundled into `tables/web/checker.js` by
 * `deno task page:build`): reads the files a person picks (one per labelled input, or several at
 * once from the drop zone, which the keyboard opens too) or drops, runs {@link runCheck} (the
 * code `bitaudit check` runs) and shows {@link checkView}. Files are read locally with the File
 * API; nothing is sent anywhere. Every value reaches the page through `textContent`, never as
 * HTML, so text inside an attestation stays inert; and every value is escaped as the CLI prints
 * it (`escapeForTerminal`, file names included), so no control or bidirectional character acts.
 *
 * @module
 */
import { escapeForTerminal } from "../escape_text.ts";
import { checkView } from "./check_view.ts";
import { type CheckTexts, runCheck } from "./run_check.ts";
import { renderView } from "./render_view.ts";

/** Largest attestation or trust root read (bytes), as `bitaudit check`. */
const MAX_DOC_BYTES = 16 * 1024 * 1024;
/** Largest claim log read (bytes), as `bitaudit check`. */
const MAX_LOG_BYTES = 256 * 1024 * 1024;
/** Largest RFC 3161 token read (bytes), as `bitaudit check` (MAX_TIMESTAMP_TOKEN_BYTES). */
const MAX_TOKEN_BYTES = 64 * 1024;

type Slot = "attestation" | "trustRoot" | "log" | "timestamp";
const SLOTS: readonly Slot[] = ["attestation", "trustRoot", "log", "timestamp"];
const LABEL: Record<Slot, string> = {
  attestation: "attestation",
  trustRoot: "trust root",
  log: "claim log",
  timestamp: "timestamp",
};
const MAX: Record<Slot, number> = {
  attestation: MAX_DOC_BYTES,
  trustRoot: MAX_DOC_BYTES,
  log: MAX_LOG_BYTES,
  timestamp: MAX_TOKEN_BYTES,
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
      : escapeForTerminal(`${f.name} (${f.size.toLocaleString("en")} bytes)`);
  }
  _el<HTMLButtonElement>("check").disabled = chosen.attestation === undefined ||
    chosen.trustRoot === undefined;
}

/**
 * Recognises a dropped file by its content: envelope or Sigstore bundle, trust root, JSON Lines
 * claim log, or a DER RFC 3161 token (a SEQUENCE, not text).
 */
async function _classify(f: File): Promise<Slot | null> {
  const bytes = new Uint8Array(await f.slice(0, 4096).arrayBuffer());
  if (bytes[0] === 0x30) return "timestamp"; // DER SEQUENCE; JSON text never starts with "0"
  const head = new TextDecoder().decode(bytes).trimStart();
  // An envelope opens with one of its three fields; `payloadType` alone may come after a payload
  // longer than the head (`bitaudit audit` writes `payload` first). A bundle names its media type.
  if (/^\{\s*"(?:payload|payloadType|signatures)"\s*:/.test(head)) return "attestation";
  if (/^\{[^]*"(?:dsseEnvelope|application\/vnd\.dev\.sigstore\.bundle)/.test(head)) {
    return "attestation";
  }
  if (/^\{[^]*"payloadType"/.test(head)) return "attestation";
  if (/^\{[^]*"mediaType"/.test(head)) return "trustRoot";
  if (/^\{[^]*"predicateType"/.test(head)) return "log";
  return null;
}

async function _read(slot: Slot): Promise<string | Uint8Array | undefined> {
  const f = chosen[slot];
  if (f === undefined) return undefined;
  if (f.size > MAX[slot]) {
    throw new RangeError(`Cannot read the ${LABEL[slot]}: ${f.size} bytes, at most ${MAX[slot]}`);
  }
  return slot === "timestamp" ? new Uint8Array(await f.arrayBuffer()) : await f.text();
}

async function _check(): Promise<void> {
  const out = _el("result");
  out.setAttribute("aria-busy", "true");
  out.replaceChildren(document.createTextNode("Checking…"));
  try {
    const [attestation, trustRoot, log, timestamp] = await Promise.all(SLOTS.map(_read));
    const texts: CheckTexts = {
      attestation: typeof attestation === "string" ? attestation : "",
      trustRoot: typeof trustRoot === "string" ? trustRoot : "",
      ...(typeof log === "string" ? { log } : {}),
      ...(timestamp instanceof Uint8Array ? { timestamp } : {}),
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

/**
 * Puts dropped or chosen files into the slots their content names; names the others. Two files of
 * one batch that claim the same slot fill neither: which one should count (say, which of two trust
 * roots) is the user's decision, never the order of a file list.
 */
async function _take(files: Iterable<File>): Promise<void> {
  const unknown: string[] = [];
  const bySlot = new Map<Slot, File[]>();
  for (const f of files) {
    const slot = await _classify(f);
    if (slot === null) unknown.push(f.name);
    else bySlot.set(slot, [...(bySlot.get(slot) ?? []), f]);
  }
  const notes: string[] = [];
  for (const [slot, fs] of bySlot) {
    if (fs.length === 1) chosen[slot] = fs[0]!;
    else {
      delete chosen[slot];
      notes.push(
        `${fs.length} files look like the ${LABEL[slot]} (${
          fs.map((f) => f.name).join(", ")
        }): none was taken; add the one you mean on its own`,
      );
    }
  }
  if (unknown.length > 0) {
    notes.push(
      `Not recognised (expected an attestation, a trust root, a claim log or a timestamp): ${
        unknown.join(", ")
      }`,
    );
  }
  _el("drop-note").textContent = escapeForTerminal(notes.join(". "));
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
