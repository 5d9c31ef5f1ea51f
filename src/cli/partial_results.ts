/**
 * Resumable shards: `audit work` appends each result to `<out>.partial` as soon as it is computed,
 * and writes `<out>` (in shard order) only when the shard is complete. A run killed mid-shard
 * (a preempted pod, a requeued array task) leaves the partial file; the next run of the same
 * shard keeps its complete lines, drops a line cut short, and recomputes only the rest.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { ITEM_RESULT_PAYLOAD_TYPE, openItemResult, type WorkerKeys } from "../attest/mod.ts";
import type { PlanItem } from "../verify/mod.ts";
import { readTextFile } from "./read_json_file.ts";
import { ioCause } from "./io_cause.ts";
import { MAX_RESULTS_BYTES } from "./read_results.ts";

/**
 * A signed result line, as `signItemResult` writes it (the canonical JSON of its DSSE envelope):
 * fixed text, and runs of base64 or hex digits between.
 */
const RESULT_LINE: readonly (string | RegExp)[] = [
  '{"payload":"',
  /[A-Za-z0-9+/=]/,
  `","payloadType":"${ITEM_RESULT_PAYLOAD_TYPE}","signatures":[{"keyid":"`,
  /[0-9a-f]/,
  '","sig":"',
  /[A-Za-z0-9+/=]/,
  '"}]}',
];

/** Whether `cut` is the start (or the whole) of a line of the {@link RESULT_LINE} form. */
function _startsResultLine(cut: string): boolean {
  let at = 0;
  for (const part of RESULT_LINE) {
    if (typeof part === "string") {
      const rest = cut.slice(at, at + part.length);
      if (!part.startsWith(rest)) return false;
      at += rest.length;
      if (rest.length < part.length) return at === cut.length;
    } else {
      while (at < cut.length && part.test(cut[at]!)) at++;
    }
  }
  return at === cut.length;
}

/**
 * Reads what an earlier run of this shard left, and cuts off a last line written only in part.
 *
 * @param path the partial file (`<out>.partial`)
 * @param shard plan digest, the shard's items and this worker's key (`workers`): a line signed
 *   by any other key is not this run's
 * @returns item digest -> its result line (with newline); empty when there is no partial file
 * @throws {InputError} `OUTPUT_EXISTS` when the file is not a regular file or holds anything but
 *   results of this shard and the start of one
 * @example
 * ```ts ignore
 * const done = await resumePartial("results-0.jsonl.partial", { planDigest, items, workers });
 * ```
 */
export async function resumePartial(
  path: string,
  shard: { planDigest: string; items: readonly PlanItem[]; workers: WorkerKeys },
): Promise<Map<string, string>> {
  const kept = new Map<string, string>();
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return kept;
    throw e;
  }
  const refuse = (why: string) =>
    new InputError("OUTPUT_EXISTS", `Cannot resume from '${path}': ${why} (not touched)`);
  if (!info.isFile) throw refuse("it is not a regular file (a link or a folder)");
  const text = await readTextFile(path, { maxBytes: MAX_RESULTS_BYTES });
  const lines = text.split("\n");
  const cut = lines.pop()!; // "" when the file ends with a newline
  // An empty file, or a line cut short that is not the start of a signed result line (canonical
  // JSON of its envelope), is a file this command did not write: neither truncated nor removed.
  if (text === "") throw refuse("it is empty (remove it to run the shard afresh)");
  if (!_startsResultLine(cut)) throw refuse("its last line is not the start of a result line");
  const mine = new Set(shard.items.map((it) => it.item));
  for (const [i, line] of lines.entries()) {
    let r;
    try {
      r = (await openItemResult(line, { where: `${path}:${i + 1}`, workers: shard.workers }))
        .result;
    } catch {
      r = undefined;
    }
    if (r === undefined || r.plan !== shard.planDigest || !mine.has(r.item)) {
      throw refuse(`line ${i + 1} is not a result of this shard`);
    }
    kept.set(r.item, line + "\n");
  }
  if (cut !== "") {
    try {
      await Deno.truncate(
        path,
        new TextEncoder().encode(text).length - new TextEncoder().encode(cut).length,
      );
    } catch (e) {
      if (e instanceof Deno.errors.NotCapable) throw e;
      throw new InputError("OUTPUT_WRITE", `Cannot cut short '${path}': ${ioCause(e)}`);
    }
  }
  return kept;
}

/** The partial file of one run, opened once and written through that handle only. */
export interface PartialFile {
  /**
   * Appends one result line (the file is created on first use, unless the run resumed one).
   *
   * @throws {InputError} `OUTPUT_REPLACED` when the path no longer names the file this run
   *   opened (a link or another file put in its place); `OUTPUT_WRITE` when it cannot be written
   */
  append(line: string): Promise<void>;
  /**
   * Closes the handle and removes the file, once the shard's results are written.
   *
   * @throws {InputError} `OUTPUT_REPLACED` when the path no longer names the file this run opened
   *   (what is there is left alone)
   */
  finish(): Promise<void>;
}

/**
 * Opens the partial file of a run: every append goes through one handle, and the path is checked
 * to name that same file (not a link, not a file put in its place) before each append and before
 * it is removed, so nothing is written through, or removed in place of, something planted there.
 *
 * @param path the partial file (`<out>.partial`), left by an earlier run (already checked by
 *   {@link resumePartial}) or not there
 * @returns the partial file
 * @example
 * ```ts ignore
 * const partial = openPartial("results-0.jsonl.partial");
 * await partial.append(await signItemResult(r, key));
 * ```
 */
export function openPartial(path: string): PartialFile {
  let file: Deno.FsFile | undefined;
  let opened: Deno.FileInfo | undefined;
  let created = false;
  const replaced = () =>
    new InputError(
      "OUTPUT_REPLACED",
      `Cannot write '${path}': it was replaced by something other than the file this run opened (not touched)`,
    );
  const check = async () => {
    const now = await Deno.lstat(path).catch(() => null);
    if (now === null || !now.isFile || now.ino !== opened!.ino || now.dev !== opened!.dev) {
      throw replaced();
    }
  };
  const open = async () => {
    try {
      try {
        file = await Deno.open(path, { append: true, createNew: true });
        created = true;
      } catch (e) {
        if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
        const info = await Deno.lstat(path);
        if (!info.isFile) throw replaced();
        file = await Deno.open(path, { append: true });
      }
      opened = await file.stat();
      await check(); // the file opened is the one the path names, not a link's target
    } catch (e) {
      file?.close();
      file = undefined;
      // The file this run created goes, unless the path names something else by now (a link
      // swapped in between the creation and the check is left alone, as is its target).
      const moved = e instanceof InputError && e.code === "OUTPUT_REPLACED";
      if (created && !moved) await Deno.remove(path).catch(() => {});
      created = false;
      throw e;
    }
  };
  return {
    async append(line) {
      try {
        if (file === undefined) await open();
        else await check();
        const bytes = new TextEncoder().encode(line);
        for (let at = 0; at < bytes.length;) at += await file!.write(bytes.subarray(at));
      } catch (e) {
        // A file this run created and could not write a byte into would block the next run (an
        // empty partial file is refused): it goes, unless the path names something else now
        // (that is left alone). A line cut short is dropped on resume.
        const moved = e instanceof InputError && e.code === "OUTPUT_REPLACED";
        if (!moved && created && file !== undefined && (await file.stat()).size === 0) {
          file.close();
          file = undefined;
          await Deno.remove(path).catch(() => {});
        }
        if (e instanceof InputError || e instanceof Deno.errors.NotCapable) throw e;
        throw new InputError("OUTPUT_WRITE", `Cannot write '${path}': ${ioCause(e)}`);
      }
    },
    async finish() {
      if (file === undefined) {
        // Nothing appended: a file resumed whole is removed, if it is still a plain file.
        const info = await Deno.lstat(path).catch(() => null);
        if (info === null) return;
        if (!info.isFile) throw replaced();
        await Deno.remove(path);
        return;
      }
      try {
        await check();
        await Deno.remove(path);
      } finally {
        file.close();
        file = undefined;
      }
    },
  };
}
