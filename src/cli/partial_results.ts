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
import { type Build, describeBuild, type PlanItem, resultBuild, sameBuild } from "../verify/mod.ts";
import { readTextFile } from "./read_json_file.ts";
import { type FileIdentity, fileIdentity, removeOnInterrupt } from "./cleanup.ts";
import { ioCause } from "../io_cause.ts";
import { MAX_RESULT_LINES, MAX_RESULTS_BYTES } from "./read_results.ts";
import { splitLines } from "../split_lines.ts";

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

/** What {@link resumePartial} found. */
export interface ResumedPartial {
  /** Item digest -> its result line (with newline); empty when there is no partial file. */
  readonly lines: Map<string, string>;
  /**
   * The identity of the partial file checked (undefined where the platform has no inode numbers),
   * or null when there was none (give it to {@link openPartial}).
   */
  readonly found: FileIdentity | undefined | null;
}

/**
 * Reads what an earlier run of this shard left, and cuts off a last line written only in part.
 *
 * @param path the partial file (`<out>.partial`)
 * @param shard plan digest, the shard's items and this worker's key (`workers`): a line signed
 *   by any other key is not this run's
 * @returns the result lines kept, by item digest, and the file they came from (null when there is
 *   no partial file; an empty file is resumed with no line kept)
 * @throws {InputError} `OUTPUT_EXISTS` when the file is not a regular file, has another hard link,
 *   is replaced while it is read, or holds anything but results of this shard and the start of one
 * @example
 * ```ts ignore
 * const { lines, found } = await resumePartial("r0.jsonl.partial", { planDigest, items, workers });
 * ```
 */
export async function resumePartial(
  path: string,
  shard: {
    planDigest: string;
    items: readonly PlanItem[];
    workers: WorkerKeys;
    build: Build;
  },
): Promise<ResumedPartial> {
  const kept = new Map<string, string>();
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { lines: kept, found: null };
    throw new InputError("OUTPUT_WRITE", `Cannot resume from '${path}': ${ioCause(e)}`);
  }
  const refuse = (why: string) =>
    new InputError("OUTPUT_EXISTS", `Cannot resume from '${path}': ${why} (not touched)`);
  if (!info.isFile) throw refuse("it is not a regular file (a link or a folder)");
  // A hard link shares its bytes with another name: cutting or appending would change that too.
  if (_linked(info)) throw refuse("it has another hard link");
  const text = await readTextFile(path, { maxBytes: MAX_RESULTS_BYTES });
  const lines = splitLines(text, MAX_RESULT_LINES + 1);
  if (lines === null) throw refuse(`it has more than ${MAX_RESULT_LINES} lines`);
  const cut = lines.pop()!; // "" when the file ends with a newline
  // An empty file is a run killed between creating the file and writing its first line: nothing
  // is done yet, and it holds nothing to lose (the shard runs from its first item, appending to
  // it). A line cut short that is not the start of a signed result line (canonical JSON of its
  // envelope) is a file this command did not write: neither truncated nor removed.
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
    if (!sameBuild(resultBuild(r), shard.build)) {
      throw refuse(
        `line ${i + 1} was computed by another build (${describeBuild(resultBuild(r))}; this ` +
          `is ${describeBuild(shard.build)}): remove it to run the shard afresh`,
      );
    }
    kept.set(r.item, line + "\n");
  }
  // The lines checked are those of the file looked at, not of one put in its place meanwhile.
  const read = await Deno.lstat(path).catch(() => null);
  if (read === null || !_same(read, info) || _linked(read)) {
    throw refuse("it was replaced while it was read");
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
  return { lines: kept, found: fileIdentity(info) };
}

/** Whether two looks at a path saw one file (same device and inode, where the platform says). */
function _same(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** Whether a file is the one of that identity (always, where the platform has no inode numbers). */
function _is(info: Deno.FileInfo, identity: FileIdentity | undefined): boolean {
  return identity === undefined || (info.dev === identity.dev && info.ino === identity.ino);
}

/** Whether the file has another name (a hard link); null: the platform does not say. */
function _linked(info: Deno.FileInfo): boolean {
  return info.nlink !== null && info.nlink !== 1;
}

/** The partial file of one run, opened once and written through that handle only. */
export interface PartialFile {
  /**
   * Appends one result line (the file is created on first use, unless the run resumed one).
   *
   * @throws {InputError} `OUTPUT_REPLACED` when the path no longer names the file this run
   *   created or resumed (a link, a hard link, or another file put in its place, or anything
   *   there at all when the run found none); `OUTPUT_WRITE` when it cannot be written
   */
  append(line: string): Promise<void>;
  /**
   * Closes the handle and removes the file, once the shard's results are written.
   *
   * @throws {InputError} `OUTPUT_REPLACED` when the path no longer names the file this run
   *   created or resumed (what is there is left alone)
   */
  finish(): Promise<void>;
}

/**
 * Opens the partial file of a run: every append goes through one handle, and the path is checked
 * to name that same file (not a link, not a file put in its place, not hard-linked elsewhere)
 * before each append and before it is removed, so nothing is written through, or removed in
 * place of, something planted there. When {@link resumePartial} found no file, the first append
 * only creates one (something there by then is refused); when it found one, only that file (same
 * device and inode) is appended to.
 *
 * @param path the partial file (`<out>.partial`)
 * @param found what {@link resumePartial} found there: the identity of the file it checked, or
 *   null for none
 * @returns the partial file
 * @example
 * ```ts ignore
 * const partial = openPartial("results-0.jsonl.partial", found);
 * await partial.append(await signItemResult(r, key));
 * ```
 */
export function openPartial(path: string, found: FileIdentity | undefined | null): PartialFile {
  let file: Deno.FsFile | undefined;
  // The file this run writes: the one resumed, or (once created) the one it created; null: none.
  let own: FileIdentity | undefined | null = found;
  let created = false;
  let dropOnInterrupt: ((remove: boolean) => Promise<void>) | undefined;
  const replaced = (why = "it was replaced by something other than the file this run opened") =>
    new InputError("OUTPUT_REPLACED", `Cannot write '${path}': ${why} (not touched)`);
  // Whether the path names this run's file, a plain file with no other name.
  const named = async () => {
    const now = await Deno.lstat(path).catch(() => null);
    if (now === null || !now.isFile || own === null || !_is(now, own)) return "replaced";
    return _linked(now) ? "linked" : "own";
  };
  const check = async () => {
    const state = await named();
    if (state === "linked") throw replaced("another hard link to it was made");
    if (state !== "own") throw replaced();
  };
  // Removes the path only while it names the file this run created (else leaves it alone).
  const removeCreated = async () => {
    await dropOnInterrupt?.(false);
    dropOnInterrupt = undefined;
    if (created && (await named()) === "own") await Deno.remove(path).catch(() => {});
    created = false;
  };
  const open = async () => {
    try {
      if (found === null) {
        try {
          file = await Deno.open(path, { append: true, createNew: true });
        } catch (e) {
          if (e instanceof Deno.errors.AlreadyExists) {
            throw replaced("something was put there after this run found no partial file");
          }
          throw e;
        }
        created = true;
        own = fileIdentity(file.statSync());
        // Empty until its first line is written: an interrupt meanwhile takes it away, while the
        // path still names it (another run's file put there meanwhile stays).
        dropOnInterrupt = removeOnInterrupt(path, { recursive: false, identity: own });
      } else {
        await check(); // before opening: a link put in its place is not followed
        file = await Deno.open(path, { append: true });
        if (!_is(await file.stat(), found)) throw replaced();
      }
      await check(); // the file opened is the one the path names, not a link's target
    } catch (e) {
      file?.close();
      file = undefined;
      // The file this run created goes, unless the path names something else by now (a link
      // swapped in between the creation and the check is left alone, as is its target).
      await removeCreated();
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
        if (bytes.length > 0) {
          await dropOnInterrupt?.(false); // it holds a line now: kept for the next run to resume
          dropOnInterrupt = undefined;
        }
      } catch (e) {
        // A file this run created and could not write a byte into holds nothing: it goes, unless
        // the path names something else now (that is left alone). A line cut short is dropped on
        // resume.
        if (created && file !== undefined && (await file.stat().catch(() => null))?.size === 0) {
          file.close();
          file = undefined;
          await removeCreated();
        }
        if (e instanceof InputError || e instanceof Deno.errors.NotCapable) throw e;
        throw new InputError("OUTPUT_WRITE", `Cannot write '${path}': ${ioCause(e)}`);
      }
    },
    async finish() {
      try {
        // Nothing there and nothing created or resumed: nothing to remove.
        if (own === null && (await Deno.lstat(path).catch(() => null)) === null) return;
        await check();
        await Deno.remove(path);
      } finally {
        await dropOnInterrupt?.(false);
        dropOnInterrupt = undefined;
        file?.close();
        file = undefined;
      }
    },
  };
}
