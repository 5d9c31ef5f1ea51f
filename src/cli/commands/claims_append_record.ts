/**
 * What every `claims append` of a model record (`model_forward`, `sequence`) does around its
 * record: store the committed files by digest in `<log folder>/blobs/`, and append the record to
 * the log, which continues its chain (or starts with `--log-id`). Each kind hands in how its
 * record is built (`RecordBuilder`) and which files it commits beside the checkpoint's.
 *
 * Order: lock the log, read it, open and copy the checkpoint and the kind's files, build and
 * validate the record (a refused record leaves no blob and no log change), move the blobs into
 * place, then replace the log at once. Blobs are written before the log, so the log never names a
 * missing blob.
 *
 * @module
 */
import { normalize } from "node:path";
import { type AssetStore, openAssetStore } from "../../assets/mod.ts";
import { type ClaimRecord, formatClaimLog, parseClaimLog, recordDigest } from "../../claims/mod.ts";
import { InputError } from "../../errors.ts";
import { openCheckpointDir, openCheckpointPaths } from "../../resolve/mod.ts";
import { type ModelClaimFacts, nextLogPosition } from "../../prover/mod.ts";
import { createOwnedDir } from "../cleanup.ts";
import { blobsBeside } from "../work_context.ts";
import {
  commitBlob,
  removeStaleStaged,
  stageBlob,
  type StagedBlob,
} from "./claims_append_blobs.ts";
import {
  type AppendModelOptions,
  type ChainFacts,
  readModelInputs,
} from "./claims_append_inputs.ts";
import { readLogForAppend, replaceLog } from "./claims_append_log.ts";
import { lockLog } from "./claims_log_lock.ts";

/** How one record kind is built inside an append. */
export interface RecordBuilder {
  /** Files the record commits beside the checkpoint's (e.g. a serving history), by name. */
  readonly files?: readonly { readonly name: string; readonly path: string }[];
  /**
   * Builds the validated record from the common facts (the checkpoint opened from its staged
   * copies) and the staged copies of `files`, by name, and checks it against the facts of a
   * `model forward --json` chain file (`checkChainFacts`; undefined: a bare chain, or none).
   */
  readonly build: (
    facts: ModelClaimFacts,
    ctx: {
      readonly store: AssetStore;
      readonly staged: ReadonlyMap<string, StagedBlob>;
      readonly chainFacts: ChainFacts | undefined;
    },
  ) => Promise<ClaimRecord>;
}

/** What an append did. */
export interface AppendResult {
  /** The log file. */
  readonly log: string;
  /** The log's id. */
  readonly logId: string;
  /** The new record's sequence number. */
  readonly seq: number;
  /** The new record's digest. */
  readonly digest: string;
  /** Records in the log now. */
  readonly records: number;
  /** The log's new Merkle root. */
  readonly root: string;
  /** Digests of the blobs written, and of those already stored with the same bytes. */
  readonly blobs: { readonly written: readonly string[]; readonly present: readonly string[] };
}

/** What an append of a model record is given: the common facts, and how its success is said. */
export interface AppendRunOptions extends AppendModelOptions {
  /**
   * Reports the appended record (the command's success line), called while an interrupt still
   * says that the record was appended.
   */
  readonly report?: ((r: AppendResult) => void) | undefined;
}

/**
 * Appends a model record to a claim log, with its checkpoint and files stored as blobs.
 *
 * @param given the common facts and where the log is
 * @param builder the kind's files and record builder
 * @returns the record's place and digest, the new root and the blobs stored
 * @throws {InputError} the builder's refusals, the checkpoint's `CHECKPOINT_*` and `CONFIG_*`
 *   codes, the log's `LOG_*` codes, `OUTPUT_EXISTS` (the log is locked), `BLOB_DIGEST_MISMATCH`
 *   (a stored blob holds other bytes), `OUTPUT_WRITE`, `USAGE`
 * @throws {AssetError} unknown stack, profile, catalog or recipe
 * @example
 * ```ts ignore
 * await appendModelRecord(o, { build: (facts, { store }) => modelForwardClaim(
 *   { ...facts, tokens }, { store }) });
 * ```
 */
export async function appendModelRecord(
  given: AppendRunOptions,
  builder: RecordBuilder,
): Promise<AppendResult> {
  // Without `..` (see writeNewFile): the lock and the temporary copy removed are the files this
  // append wrote, never those a removal would find by resolving `lnk/..` on the file system.
  const o = { ...given, log: normalize(given.log) };
  const store = await openAssetStore();
  const inputs = await readModelInputs(store, o);
  using opened = await openCheckpointDir(o.checkpoint); // refuses what is no checkpoint before any copy
  const { ckpt } = opened;
  // Shared: another append may take the lock and write the log as soon as the folder exists, so a
  // failed or interrupted append removes it only while empty (never another's log).
  const logDone = await createOwnedDir(_folder(o.log), { shared: true });
  let ok = false;
  // Once the log is replaced, an interrupt says the record is in it until it has been reported.
  let forget = () => {};
  try {
    let result: AppendResult;
    try {
      const unlock = await lockLog(o.log);
      try {
        const common = { ...inputs, store, files: ckpt.files };
        ({ result, forget } = await _appendLocked(o, { common, builder }));
        ok = true;
      } finally {
        await unlock();
      }
    } finally {
      await logDone(ok);
    }
    o.report?.(result);
    return result;
  } finally {
    forget();
  }
}

/** With the log locked: stage the files, build the record, store the blobs, replace the log. */
async function _appendLocked(
  o: AppendModelOptions,
  w: {
    readonly common: Awaited<ReturnType<typeof readModelInputs>> & {
      readonly store: AssetStore;
      readonly files: readonly string[];
    };
    readonly builder: RecordBuilder;
  },
): Promise<{ result: AppendResult; forget: () => void }> {
  const { common, builder } = w;
  const read = await readLogForAppend(o.log);
  const position = nextLogPosition(read.log, { logId: o.logId });
  const blobsDir = blobsBeside(o.log);
  // Shared as the log's folder: blobs committed before an interruption stay (content-addressed,
  // harmless), and the log line written just before one never loses its blobs.
  const blobsDone = await createOwnedDir(blobsDir, { shared: true });
  await removeStaleStaged(blobsDir);
  const staged: StagedBlob[] = [];
  const extra = new Map<string, StagedBlob>();
  let ok = false;
  try {
    for (const name of ["config.json", ...common.files]) {
      staged.push(await stageBlob(`${o.checkpoint}/${name}`, { dir: blobsDir, name }));
    }
    const checkpoint = await _stagedCheckpoint(staged);
    for (const f of builder.files ?? []) {
      const s = await stageBlob(f.path, { dir: blobsDir, name: f.name });
      staged.push(s);
      extra.set(f.name, s);
    }
    const record = await builder.build({
      position,
      checkpoint,
      stack: o.stack,
      profile: o.profile,
      multiProcessorCount: common.sms,
      kernel: common.kernel,
      fingerprint: o.fingerprint,
      layerChain: common.layerChain,
      components: o.components,
      gpuCount: o.gpus,
      parallel: o.parallel,
    }, { store: common.store, staged: extra, chainFacts: common.chainFacts });
    const sep = read.text === "" || read.text.endsWith("\n") ? "" : "\n";
    const text = read.text + sep + formatClaimLog([record]);
    const log = parseClaimLog(text); // the chain as the verifier reads it
    const blobs = { written: [] as string[], present: [] as string[] };
    for (const s of staged) {
      const how = await commitBlob(s, blobsDir);
      if (!blobs[how].includes(s.sha256)) blobs[how].push(s.sha256);
    }
    const digest = recordDigest(record);
    const forget = await replaceLog(o.log, {
      text,
      read,
      appended: `interrupted after appending record ${position.seq} (${digest}) to '${o.log}': ` +
        "it is in the log (do not append it again)",
    });
    ok = true;
    const result = {
      log: o.log,
      logId: position.logId,
      seq: position.seq,
      digest,
      records: log.records.length,
      root: log.root,
      blobs,
    };
    return { result, forget };
  } finally {
    for (const s of staged) await s.discard();
    await blobsDone(ok);
  }
}

/** The checkpoint as stored: opened from the staged copies, with their digests. */
async function _stagedCheckpoint(
  staged: readonly StagedBlob[],
): Promise<ModelClaimFacts["checkpoint"]> {
  const byName = new Map(staged.map((s) => [s.name, s]));
  using opened = await openCheckpointPaths(new Map(staged.map((s) => [s.name, s.path])), {
    weightFiles: staged.filter((s) => s.name !== "config.json").map((s) => s.name),
  });
  const { ckpt } = opened;
  const digests: Record<string, string> = {};
  for (const name of ckpt.files) digests[name] = byName.get(name)!.sha256;
  if (ckpt.configSha256 !== byName.get("config.json")!.sha256) {
    throw new InputError("CHECKPOINT_DIGEST", "Cannot append claim: config.json changed");
  }
  return { ckpt, digests };
}

function _folder(path: string): string {
  return path.replace(/[^/]*$/, "").replace(/\/$/, "") || ".";
}
