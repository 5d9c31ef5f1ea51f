/**
 * The `claims append model_forward` action: from the facts of one forward pass a prover ran,
 * build the record (`modelForwardClaim`, the simulated prover's builder), store the committed
 * files by digest in `<log folder>/blobs/`, and append the record to the log, which continues its
 * chain (or starts with `--log-id`).
 *
 * Order: lock the log, read it, open and copy the checkpoint, build and validate the record (a
 * refused record leaves no blob and no log change), move the blobs into place, then replace the
 * log at once. Blobs are written before the log, so the log never names a missing blob.
 *
 * @module
 */
import {
  type AssetStore,
  checkpointDir,
  fileByteSource,
  openAssetStore,
} from "../../assets/mod.ts";
import { formatClaimLog, parseClaimLog, recordDigest } from "../../claims/mod.ts";
import { InputError } from "../../errors.ts";
import { openDecoderCheckpoint } from "../../model/mod.ts";
import { modelForwardClaim, type ModelForwardFacts, nextLogPosition } from "../../prover/mod.ts";
import { loadAsset, RECIPES, STACK_PROFILES } from "../../resolve/mod.ts";
import { createOwnedDir } from "../cleanup.ts";
import { readJsonFile } from "../read_json_file.ts";
import { blobsBeside } from "../work_context.ts";
import { commitBlob, stageBlob, type StagedBlob } from "./claims_append_blobs.ts";
import { lockLog, readLogForAppend, replaceLog } from "./claims_append_log.ts";
import { KNOWN_SM_COUNTS } from "./model_forward.ts";

/** What `claims append model_forward` is given. */
export interface AppendForwardOptions {
  /** The claim log (created when missing). */
  readonly log: string;
  /** The id of a new log (checked against an existing log's). */
  readonly logId?: string | undefined;
  /** The checkpoint folder (config.json and the weights). */
  readonly checkpoint: string;
  /** The token batch file. */
  readonly tokens: string;
  /** Stack profile id. */
  readonly stack: string;
  /** GPU profile id. */
  readonly profile: string;
  /** SM count (default: the profile's known count). */
  readonly sms?: number | undefined;
  /** Dispatch catalog id (stacks with catalog kernels). */
  readonly catalog?: string | undefined;
  /** Recipe name or descriptor file (stacks with recipe kernels). */
  readonly recipe?: string | undefined;
  /** The fingerprint the prover computed. */
  readonly fingerprint: string;
  /** Fingerprinted `[sequence, token]` rows (default: each sequence's last token). */
  readonly positions?: readonly (readonly [number, number])[] | undefined;
  /** Layer chain file. */
  readonly layerChain?: string | undefined;
  /** Software versions over the stack profile's. */
  readonly components?: Readonly<Record<string, string>> | undefined;
  /** GPUs of the machine. */
  readonly gpus?: number | undefined;
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

/** Default recipe of stacks with recipe kernels (as `model forward`). */
export const DEFAULT_RECIPE = "cutlass-kwalk-128x128x64";

/**
 * Appends a `model_forward` record to a claim log.
 *
 * @param o the facts of the pass and where the log is
 * @returns the record's place and digest, the new root and the blobs stored
 * @throws {InputError} the refusals of `modelForwardClaim`, the checkpoint's `CHECKPOINT_*` and
 *   `CONFIG_*` codes, `TOKENS_INVALID`, the log's `LOG_*` codes, `OUTPUT_EXISTS` (the log is
 *   locked), `BLOB_DIGEST_MISMATCH` (a stored blob holds other bytes), `OUTPUT_WRITE`, `USAGE`
 * @throws {AssetError} unknown stack, profile, catalog or recipe
 * @example
 * ```ts ignore
 * await appendForwardClaim({ log: "log/claims.jsonl", logId: "l", checkpoint: "ckpt",
 *   tokens: "tokens.json", stack: "hf-qwen3-flash-attn-torch2.8", profile: "a100",
 *   catalog: "demo-qwen3-tiny-a100", fingerprint });
 * ```
 */
export async function appendForwardClaim(o: AppendForwardOptions): Promise<AppendResult> {
  const store = await openAssetStore();
  const inputs: _Inputs = {
    store,
    kernel: await _kernel(store, o),
    sms: o.sms ?? KNOWN_SM_COUNTS[o.profile] ?? _noSms(o.profile),
    tokens: await readJsonFile(o.tokens),
    layerChain: o.layerChain === undefined ? undefined : _chain(await readJsonFile(o.layerChain)),
  };
  using source = await checkpointDir(o.checkpoint);
  const ckpt = await openDecoderCheckpoint(source); // refuses what is no checkpoint before any copy
  const logDone = await createOwnedDir(_folder(o.log));
  let ok = false;
  try {
    const unlock = await lockLog(o.log);
    try {
      const result = await _appendLocked(o, { ...inputs, files: ckpt.files });
      ok = true;
      return result;
    } finally {
      await unlock();
    }
  } finally {
    await logDone(ok);
  }
}

/** What is read before the log is locked. */
interface _Inputs {
  readonly store: AssetStore;
  readonly kernel: ModelForwardFacts["kernel"];
  readonly sms: number;
  readonly tokens: unknown;
  readonly layerChain: unknown;
}

/** With the log locked: stage the files, build the record, store the blobs, replace the log. */
async function _appendLocked(
  o: AppendForwardOptions,
  inputs: _Inputs & { readonly files: readonly string[] },
): Promise<AppendResult> {
  const read = await readLogForAppend(o.log);
  const position = nextLogPosition(read.log, { logId: o.logId });
  const blobsDir = blobsBeside(o.log);
  const blobsDone = await createOwnedDir(blobsDir);
  const staged: StagedBlob[] = [];
  let ok = false;
  try {
    for (const name of ["config.json", ...inputs.files]) {
      staged.push(await stageBlob(`${o.checkpoint}/${name}`, { dir: blobsDir, name }));
    }
    const record = await modelForwardClaim({
      position,
      checkpoint: await _stagedCheckpoint(staged),
      tokens: inputs.tokens,
      stack: o.stack,
      profile: o.profile,
      multiProcessorCount: inputs.sms,
      kernel: inputs.kernel,
      fingerprint: o.fingerprint,
      positions: o.positions,
      layerChain: inputs.layerChain,
      components: o.components,
      gpuCount: o.gpus,
    }, { store: inputs.store });
    const sep = read.text === "" || read.text.endsWith("\n") ? "" : "\n";
    const text = read.text + sep + formatClaimLog([record]);
    const log = parseClaimLog(text); // the chain as the verifier reads it
    const blobs = { written: [] as string[], present: [] as string[] };
    for (const s of staged) {
      const how = await commitBlob(s, blobsDir);
      if (!blobs[how].includes(s.sha256)) blobs[how].push(s.sha256);
    }
    await replaceLog(o.log, { text, read });
    ok = true;
    return {
      log: o.log,
      logId: position.logId,
      seq: position.seq,
      digest: recordDigest(record),
      records: log.records.length,
      root: log.root,
      blobs,
    };
  } finally {
    for (const s of staged) await s.discard();
    await blobsDone(ok);
  }
}

/** The checkpoint as stored: opened from the staged copies, with their digests. */
async function _stagedCheckpoint(
  staged: readonly StagedBlob[],
): Promise<ModelForwardFacts["checkpoint"]> {
  const byName = new Map(staged.map((s) => [s.name, s]));
  const opened: { close(): void }[] = [];
  try {
    const ckpt = await openDecoderCheckpoint({
      open: async (name) => {
        const s = byName.get(name);
        if (s === undefined) return null;
        const f = await fileByteSource(s.path);
        opened.push(f);
        return f;
      },
    }, { weightFiles: staged.filter((s) => s.name !== "config.json").map((s) => s.name) });
    const digests: Record<string, string> = {};
    for (const name of ckpt.files) digests[name] = byName.get(name)!.sha256;
    if (ckpt.configSha256 !== byName.get("config.json")!.sha256) {
      throw new InputError("CHECKPOINT_DIGEST", "Cannot append claim: config.json changed");
    }
    return { ckpt, digests };
  } finally {
    for (const f of opened) f.close();
  }
}

async function _kernel(
  store: AssetStore,
  o: AppendForwardOptions,
): Promise<ModelForwardFacts["kernel"]> {
  if (o.catalog !== undefined && o.recipe !== undefined) {
    throw new InputError("USAGE", "Cannot append claim: give --kernel or --recipe, not both");
  }
  if (o.catalog !== undefined) return { catalog: o.catalog };
  let recipe = o.recipe;
  if (recipe === undefined) {
    const stack = (await loadAsset(store, { kind: STACK_PROFILES, id: o.stack })).value;
    if (stack.gemm.kernelSource === "catalog") {
      throw new InputError(
        "USAGE",
        `Cannot append claim: stack '${stack.id}' needs --kernel <catalog>`,
      );
    }
    recipe = DEFAULT_RECIPE;
  }
  if (recipe.endsWith(".json")) return { recipe: await readJsonFile(recipe, 1 << 20) };
  return { recipe: (await loadAsset(store, { kind: RECIPES, id: recipe })).value };
}

function _noSms(profile: string): never {
  throw new InputError(
    "USAGE",
    `Cannot append claim: no known SM count for '${profile}'; give --sms`,
  );
}

/** A layer chain file: the chain itself, or `model forward --json` output holding it. */
function _chain(json: unknown): unknown {
  if (typeof json === "object" && json !== null && !Array.isArray(json) && "layerChain" in json) {
    return (json as { layerChain: unknown }).layerChain;
  }
  return json;
}

function _folder(path: string): string {
  return path.replace(/[^/]*$/, "").replace(/\/$/, "") || ".";
}
