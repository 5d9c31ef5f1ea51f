/// <reference lib="dom" />
/**
 * The browser checker page's script (bundled into `tables/web/checker.js` by
 * `deno task page:build`): reads the files a person picks (one per labelled input, or several at
 * once from the drop zone, which the keyboard opens too) or drops, hands their bytes to a worker
 * that runs `runCheck` (the code `bitaudit check` runs) and shows the `CheckView` it answers.
 * The check runs off the page's thread (a claim log of hundreds of MB and its sampled records are
 * parsed there), so the page stays usable, and changing a file ends a check under way. The
 * worker's script is carried inside this one (`CHECK_WORKER_SOURCE`) and started from a blob:
 * URL, since a page opened as a file may not load a worker from a file. Files are read locally
 * with the File API; nothing is sent anywhere. Every value reaches the page through `textContent`, never as
 * HTML, so text inside an attestation stays inert; and every value is escaped as the CLI prints
 * it (`escapeForTerminal`, file names included), so no control or bidirectional character acts.
 *
 * @module
 */
import { escapeForTerminal } from "../escape_text.ts";
import type { CheckFiles, CheckMessage } from "./check_files.ts";
import type { CheckView } from "./view.ts";
import { refusedView } from "./refused_view.ts";
import type { CheckInputName } from "./run_check.ts";
import { renderView } from "./render_view.ts";

/** The worker's bundled script (`src/web/check_worker.ts`), put here by `deno task page:build`. */
declare const CHECK_WORKER_SOURCE: string;

/** Largest attestation read (bytes), as `bitaudit check` (MAX_ENVELOPE_BYTES). */
const MAX_ATTESTATION_BYTES = 64 * 1024 * 1024;
/** Largest trust root read (bytes), as `bitaudit check`. */
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
  attestation: MAX_ATTESTATION_BYTES,
  trustRoot: MAX_DOC_BYTES,
  log: MAX_LOG_BYTES,
  timestamp: MAX_TOKEN_BYTES,
};

const chosen: Partial<Record<Slot, File>> = {};
/** Slots the last drop filled: the next drop replaces them all, so no file of it lingers. */
let dropped = new Set<Slot>();
/** Bumped whenever the files change: a check started before shows nothing when it ends. */
let generation = 0;
/**
 * The generation of the check running, if any: the button stays disabled and no second check
 * starts until it ends or the files change.
 */
let running: number | null = null;
/** Ends the check under way (its worker), if any. */
let stopRunning: (() => void) | null = null;
/** The worker script's blob: URL, made at the first check and kept for the page's life. */
let workerUrl: string | null = null;

/** The files changed: the shown result no longer belongs to them, and a check under way stops. */
function _filesChanged(): void {
  generation++;
  stopRunning?.();
  running = null;
  const out = _el("result");
  out.removeAttribute("aria-busy");
  out.replaceChildren();
  _showChosen();
}

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
  _el<HTMLButtonElement>("check").disabled = running !== null ||
    chosen.attestation === undefined ||
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

/** A file that could not be read, with the input it was chosen for. */
class _ReadError extends Error {
  constructor(readonly slot: Slot, message: string) {
    super(message);
  }
}

/**
 * Reads a chosen file's bytes (the worker decodes text as `bitaudit check` does: UTF-8, fatal on a
 * bad sequence, a byte-order mark kept so the strict parsers refuse it).
 */
async function _read(slot: Slot): Promise<Uint8Array | undefined> {
  const f = chosen[slot];
  if (f === undefined) return undefined;
  if (f.size > MAX[slot]) {
    throw new _ReadError(
      slot,
      `Cannot read the ${LABEL[slot]}: ${f.size} bytes, at most ${MAX[slot]}`,
    );
  }
  try {
    return new Uint8Array(await f.arrayBuffer());
  } catch (e) {
    // The browser's refusal (e.g. the file changed on disk since it was chosen), for this slot.
    throw new _ReadError(
      slot,
      `Cannot read the ${LABEL[slot]}: ${
        e instanceof Error ? e.message : String(e)
      } (choose it again if it changed since)`,
    );
  }
}

const INPUT_NAME: Record<Slot, CheckInputName> = {
  attestation: "attestation",
  trustRoot: "trust root",
  log: "claim log",
  timestamp: "timestamp",
};

/** The page was opened where the browser gives it no WebCrypto (plain http:// off localhost). */
class _InsecureContext extends Error {
  constructor() {
    super(
      "This page checks signatures with the browser's WebCrypto, which it gives only to pages " +
        "opened from a file (file://), localhost or https://: open it from one of those",
    );
  }
}

async function _check(): Promise<void> {
  if (running !== null) return; // one check at a time (a submit by the keyboard too)
  const out = _el("result");
  const mine = ++generation;
  running = mine;
  _showChosen(); // disables the button until this check ends
  out.setAttribute("aria-busy", "true");
  out.replaceChildren(document.createTextNode("Checking…"));
  let view: CheckView | null;
  try {
    // Signatures and timestamps are checked with WebCrypto, which browsers give only to pages
    // opened from file://, localhost or https://.
    if (globalThis.crypto?.subtle === undefined) {
      throw new _InsecureContext();
    }
    const [attestation, trustRoot, log, timestamp] = await Promise.all(SLOTS.map(_read));
    if (mine !== generation) return; // the files changed while they were read: nothing to do
    const files: CheckFiles = {
      attestation: attestation ?? new Uint8Array(),
      trustRoot: trustRoot ?? new Uint8Array(),
      ...(log === undefined ? {} : { log }),
      ...(timestamp === undefined ? {} : { timestamp }),
    };
    // A large claim log takes a while; say how far it got.
    view = await _inWorker(files, (done, total) => {
      out.replaceChildren(
        document.createTextNode(
          `Checking… claim log: ${done.toLocaleString("en")} of ${
            total.toLocaleString("en")
          } records read`,
        ),
      );
    });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // A file that could not be read names its slot; anything else is the page's own fault,
    // said as such rather than blamed on the attestation.
    view = e instanceof _ReadError
      ? refusedView({ kind: "refused", input: INPUT_NAME[e.slot], code: "READ", message })
      : e instanceof _InsecureContext
      ? refusedView({ kind: "refused", input: "attestation", code: "INSECURE_CONTEXT", message })
      : refusedView({ kind: "refused", input: "attestation", code: "INTERNAL", message });
  }
  // Stopped because the files changed: `_filesChanged` has cleared the result and the next check
  // may already be running.
  if (mine !== generation) return;
  running = null;
  out.removeAttribute("aria-busy");
  _showChosen();
  if (view === null) return;
  renderView(out, view);
  out.querySelector("h2")?.focus();
}

/**
 * Runs one check in a fresh worker and ends the worker afterwards.
 *
 * @returns the worker's view, or null when the check was stopped (the files changed)
 */
function _inWorker(
  files: CheckFiles,
  progress: (done: number, total: number) => void,
): Promise<CheckView | null> {
  workerUrl ??= URL.createObjectURL(
    new Blob([CHECK_WORKER_SOURCE], { type: "text/javascript" }),
  );
  const worker = new Worker(workerUrl, { name: "bitaudit-check" });
  return new Promise<CheckView | null>((resolve) => {
    const end = (view: CheckView | null) => {
      worker.terminate();
      stopRunning = null;
      resolve(view);
    };
    stopRunning = () => end(null);
    worker.onmessage = (e: MessageEvent<CheckMessage>) => {
      if (e.data.kind === "progress") progress(e.data.done, e.data.total);
      else end(e.data.view);
    };
    // The worker could not start or failed outside the check (which answers every failure of
    // its own as a view).
    const failed = (message: string) =>
      end(refusedView({ kind: "refused", input: "attestation", code: "INTERNAL", message }));
    worker.onerror = (e) => {
      e.preventDefault();
      failed(e.message || "the checking worker failed");
    };
    worker.onmessageerror = () => failed("the checking worker's answer could not be read");
    // The bytes move to the worker rather than being copied (a log may be 256 MB).
    const buffers = [files.attestation, files.trustRoot, files.log, files.timestamp]
      .flatMap((b) => b === undefined ? [] : [b.buffer as ArrayBuffer]);
    worker.postMessage(files, buffers);
  });
}

/**
 * Puts dropped or chosen files into the slots their content names; names the others. Two files of
 * one batch that claim the same slot fill neither: which one should count is the user's decision,
 * never the order of a file list. A trust root is never taken from a drop (it must be the user's,
 * chosen in its own field), a file chosen in its own field stays whatever a drop holds (a folder
 * sent with the attestation must not swap the claim log the user picked for the audited one), and
 * a drop replaces every file the previous drop put in place.
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
  // Chosen in their own fields: the user's, kept.
  const byHand = new Set(SLOTS.filter((s) => chosen[s] !== undefined && !dropped.has(s)));
  // A new drop is a new set: what the last one filled goes (a log or token of another audit must
  // not stay beside this attestation).
  for (const slot of dropped) delete chosen[slot];
  dropped = new Set();
  // The trust root is yours, never the sender's: a folder that came with the attestation can hold
  // its own trust root, which would vouch for its own keys.
  const roots = bySlot.get("trustRoot");
  bySlot.delete("trustRoot");
  if (roots !== undefined) {
    notes.push(
      `Not taken from the dropped files: ${
        roots.map((f) => f.name).join(", ")
      } (a trust root; choose your own in the Trust root field, never one that came with the attestation)`,
    );
  }
  for (const [slot, fs] of bySlot) {
    if (byHand.has(slot)) {
      notes.push(
        `Not taken from the dropped files: ${fs.map((f) => f.name).join(", ")} (the ${
          LABEL[slot]
        } ${
          chosen[slot]!.name
        } was chosen in its own field and stays; choose another there to change it)`,
      );
    } else if (fs.length === 1) {
      chosen[slot] = fs[0]!;
      dropped.add(slot);
    } else {
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
  _filesChanged();
}

function _start(): void {
  for (const slot of SLOTS) {
    const input = _el<HTMLInputElement>(slot);
    input.addEventListener("change", () => {
      const f = input.files?.[0];
      if (f === undefined) delete chosen[slot];
      else chosen[slot] = f;
      dropped.delete(slot); // chosen by hand: the next drop leaves it
      _filesChanged();
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
