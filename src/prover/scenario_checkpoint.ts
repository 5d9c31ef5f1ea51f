/**
 * The bundled checkpoints a scenario names: loaded through resolve (`loadBundledCheckpoint`:
 * read from the asset store, opened in memory), stored as blobs by digest.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import { InputError } from "../errors.ts";
import { children, type Fields, int, str, stringMap, strings } from "../json_fields.ts";
import type { ModelRef } from "../claims/mod.ts";
import { type DecoderCheckpoint, digestOfFiles } from "../model/mod.ts";
import { loadBundledCheckpoint } from "../resolve/mod.ts";

/**
 * Reads a scenario section's `checkpoints`: a non-empty list of bundled checkpoint directories
 * (`tables/models/<dir>` asset paths).
 *
 * @param f the section under validation
 * @returns the paths
 * @throws {TypeError|RangeError} naming the bad entry
 * @example
 * ```ts
 * import { checkpointDirs } from "./scenario_checkpoint.ts";
 * import { fieldsOf } from "../json_fields.ts";
 * const d = checkpointDirs(fieldsOf({ checkpoints: ["tables/models/x"] }, "s"));
 * if (d[0] !== "tables/models/x") throw new Error();
 * ```
 */
export function checkpointDirs(f: Fields): readonly string[] {
  const dirs = strings(f, "checkpoints");
  dirs.forEach((p, i) => {
    if (!/^tables\/models\/[a-z0-9._-]+$/.test(p)) {
      throw new RangeError(`Cannot read '${f.path}.checkpoints[${i}]': a tables/models/ dir`);
    }
  });
  if (dirs.length === 0) throw new RangeError(`Cannot read '${f.path}.checkpoints': empty`);
  return dirs;
}

/** The fields every model section of a scenario (forward, serving) has. */
export interface ModelSection {
  /** Dispatch catalog id. */
  readonly catalog: string;
  /** The device's SM count. */
  readonly multiProcessorCount: number;
  /** Checkpoint directories under tables/models/. */
  readonly checkpoints: readonly string[];
  /** Whether records carry the per-layer chain. */
  readonly layerChain: boolean;
  /**
   * Stacks cycled over the records with the checkpoints (each with the components its records
   * state): the section's `stacks`, or its one `stack` and `components`.
   */
  readonly stacks: readonly SectionStack[];
}

/** A stack a section's records run on, and the components they state. */
export interface SectionStack {
  /** Stack profile id. */
  readonly stack: string;
  /** Software components recorded in the claims. */
  readonly components: Readonly<Record<string, string>>;
}

/**
 * The stack record `i` of a section runs on: its `stacks` entry, cycled.
 *
 * @param section the section
 * @param i the record's index in the section (a sequence section: the checkpoint's index)
 * @returns the stack and its components
 * @example
 * ```ts
 * import { sectionStack } from "./scenario_checkpoint.ts";
 * const s = { stacks: [{ stack: "a", components: {} }, { stack: "b", components: {} }] };
 * if (sectionStack(s, 3).stack !== "b") throw new Error();
 * ```
 */
export function sectionStack(section: Pick<ModelSection, "stacks">, i: number): SectionStack {
  return section.stacks[i % section.stacks.length]!;
}

/**
 * Reads the fields every model section has (the caller checks that no other key is present):
 * its stacks are either `stacks` (each entry a stack and the components its records state) or
 * one `stack` and its `components`, never both, so that no field is read by nothing.
 *
 * @param f the section's fields
 * @returns the common fields
 * @throws {TypeError|RangeError} naming the bad field, `stack` or `components` beside `stacks`
 *   included
 * @example
 * ```ts
 * import { modelSection } from "./scenario_checkpoint.ts";
 * import { fieldsOf } from "../json_fields.ts";
 * const m = modelSection(fieldsOf({ stack: "s", components: {}, catalog: "c",
 *   multiProcessorCount: 108, checkpoints: ["tables/models/x"], layerChain: false }, "x"));
 * if (m.multiProcessorCount !== 108 || m.layerChain || m.stacks[0]?.stack !== "s") {
 *   throw new Error();
 * }
 * ```
 */
export function modelSection(f: Fields): ModelSection {
  if (typeof f.obj.layerChain !== "boolean") {
    throw new TypeError(`Cannot read '${f.path}.layerChain': expected a boolean`);
  }
  return {
    catalog: str(f, "catalog"),
    multiProcessorCount: int(f, "multiProcessorCount", { min: 1, max: 4096 }),
    checkpoints: checkpointDirs(f),
    layerChain: f.obj.layerChain,
    stacks: _sectionStacks(f),
  };
}

/** The section's `stacks`, or its `stack` and `components` as the one entry. */
function _sectionStacks(f: Fields): readonly SectionStack[] {
  if (f.obj.stacks === undefined) {
    return [{ stack: str(f, "stack"), components: stringMap(f, "components") }];
  }
  // Each entry names its own stack and components: the section's would be read by no record.
  for (const key of ["stack", "components"]) {
    if (f.obj[key] !== undefined) {
      throw new RangeError(
        `Cannot read '${f.path}.${key}': not beside '${f.path}.stacks', whose entries name ` +
          "each record's stack and components",
      );
    }
  }
  const stacks = children(f, "stacks", ["stack", "components"])
    .map((s) => ({ stack: str(s, "stack"), components: stringMap(s, "components") }));
  if (stacks.length === 0 || stacks.length > 64) {
    throw new RangeError(`Cannot read '${f.path}.stacks': expected 1 to 64 entries`);
  }
  return stacks;
}

/** A checkpoint of a scenario: its files, the opened checkpoint, each weight file's digest. */
export interface ScenarioCheckpoint {
  /** File name -> bytes. */
  readonly files: ReadonlyMap<string, Uint8Array>;
  /** The opened checkpoint. */
  readonly ckpt: DecoderCheckpoint;
  /** Weight file name -> SHA-256. */
  readonly digests: Record<string, string>;
}

/**
 * Reads a bundled checkpoint directory through resolve, storing each file as a blob.
 *
 * @param ctx the asset store and the blob writer
 * @param path the directory's asset path (`tables/models/<dir>`)
 * @returns the files, the opened checkpoint and each weight file's digest
 * @throws {InputError} `SCENARIO_INVALID` without a `config.json` asset
 * @example
 * ```ts ignore
 * const m = await loadScenarioCheckpoint({ store, put }, "tables/models/qwen3-tiny-dense");
 * ```
 */
export async function loadScenarioCheckpoint(
  ctx: { readonly store: AssetStore; readonly put: (x: Uint8Array) => string },
  path: string,
): Promise<ScenarioCheckpoint> {
  const bundled = await loadBundledCheckpoint(ctx.store, path);
  if (bundled === null) {
    throw new InputError(
      "SCENARIO_INVALID",
      `Cannot load checkpoint '${path}': no config.json asset`,
    );
  }
  const digests: Record<string, string> = {};
  for (const [name, bytes] of bundled.files) {
    const d = ctx.put(bytes);
    if (name !== "config.json") digests[name] = d;
  }
  return { files: bundled.files, ckpt: bundled.ckpt, digests };
}

/**
 * The reference a claim record gives to a checkpoint (a scenario's, or one `claims append` read
 * from disk): model type, checkpoint digest (`bitaudit.checkpoint-digest/v1` over the weight
 * files), config digest, each file's digest.
 *
 * @param model the opened checkpoint and each weight file's digest
 * @returns the model reference
 * @example
 * ```ts ignore
 * const ref = modelRefOf(await loadScenarioCheckpoint(ctx, "tables/models/qwen3-tiny-dense"));
 * ```
 */
export function modelRefOf(model: Pick<ScenarioCheckpoint, "ckpt" | "digests">): ModelRef {
  return {
    type: model.ckpt.config.modelType,
    checkpointSha256: digestOfFiles(model.digests),
    configSha256: model.ckpt.configSha256,
    files: model.digests,
  };
}
