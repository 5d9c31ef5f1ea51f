/**
 * The checkpoint a model workload names: model type, the checkpoint digest
 * (`bitaudit.checkpoint-digest/v1` over `files`), the `config.json` digest and each weight file's
 * SHA-256. Shared by the `model_forward` and `sequence` workloads.
 *
 * @module
 */

import { arrayValue } from "../json_fields.ts";
import { predicateReaders } from "./predicate_readers.ts";

/**
 * The decoder families a model reference may name (the `model_type` of its `config.json`; the
 * verifier checks that the config says the same).
 */
export const MODEL_TYPES = ["qwen3", "qwen3_moe", "llama", "qwen2", "mistral"] as const;
Object.freeze(MODEL_TYPES);

/** One of {@link MODEL_TYPES}. */
export type ModelType = typeof MODEL_TYPES[number];

/** A checkpoint named by digests. */
export interface ModelRef {
  /** The `model_type` of its config (one of {@link MODEL_TYPES}). */
  readonly type: ModelType;
  /** The checkpoint digest over `files`. */
  readonly checkpointSha256: string;
  /** SHA-256 of `config.json`. */
  readonly configSha256: string;
  /** Weight file name -> SHA-256. */
  readonly files: Readonly<Record<string, string>>;
}

const FILE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
/** Names a checkpoint's JSON files take: never weight files. */
const RESERVED: readonly string[] = ["config.json", "model.safetensors.index.json"];

/**
 * Validates a model reference.
 *
 * @param json parsed value
 * @param ctx the field's `path` and `bad(path, why)`, which raises the caller's coded error
 * @returns the frozen reference
 * @throws whatever `ctx.bad` throws
 * @example
 * ```ts
import { parseModelRef } from "./model_ref.ts";
 * const h = "0".repeat(64);
 * const m = parseModelRef({ type: "qwen3", checkpointSha256: h, configSha256: h,
 *   files: { "model.safetensors": h } }, { path: "m", bad: (p, w) => { throw new Error(p + w); } });
 * if (m.type !== "qwen3") throw new Error();
 * ```
 */
export function parseModelRef(
  json: unknown,
  ctx: { readonly path: string; readonly bad: (path: string, why: string) => never },
): ModelRef {
  const { path: P, bad } = ctx;
  const m = typeof json === "object" && json !== null && !Array.isArray(json)
    ? json as Record<string, unknown>
    : bad(P, "must be an object");
  for (const key of Object.keys(m)) {
    if (!["type", "checkpointSha256", "configSha256", "files"].includes(key)) {
      bad(`${P}.${key}`, "unknown field");
    }
  }
  const { hex } = predicateReaders(bad);
  const type = MODEL_TYPES.find((t) => t === m.type) ??
    bad(`${P}.type`, `must be one of ${MODEL_TYPES.map((t) => `'${t}'`).join(", ")}`);
  const filesObj = typeof m.files === "object" && m.files !== null && !Array.isArray(m.files)
    ? m.files as Record<string, unknown>
    : bad(`${P}.files`, "must be an object");
  const names = Object.keys(filesObj);
  if (names.length < 1 || names.length > 4096) bad(`${P}.files`, "must list 1..4096 files");
  const files: Record<string, string> = {};
  for (const name of names) {
    if (!FILE.test(name)) bad(`${P}.files`, "must name plain files");
    // The checkpoint's JSON files have names of their own: a weight file under one of them would
    // stand in for the config the record commits by `configSha256`.
    if (RESERVED.includes(name)) bad(`${P}.files`, `must not name '${name}' as a weight file`);
    files[name] = hex(filesObj[name], `${P}.files.${name}`);
  }
  return Object.freeze({
    type,
    checkpointSha256: hex(m.checkpointSha256, `${P}.checkpointSha256`),
    configSha256: hex(m.configSha256, `${P}.configSha256`),
    files: Object.freeze(files),
  });
}

/**
 * Validates an optional per-layer chain (`[{"attention": hex, "mlp": hex}, ...]`, 1 to 1,024
 * layers).
 *
 * @param json the field's value (undefined: absent)
 * @param ctx the field's `path` and `bad(path, why)`
 * @returns the frozen chain, or undefined
 * @throws whatever `ctx.bad` throws
 * @example
 * ```ts
 * import { parseLayerChain } from "./model_ref.ts";
 * const h = "a".repeat(64);
 * const c = parseLayerChain([{ attention: h, mlp: h }], { path: "c", bad: (p, w) => { throw new Error(p + w); } });
 * if (c?.length !== 1) throw new Error();
 * ```
 */
export function parseLayerChain(
  json: unknown,
  ctx: { readonly path: string; readonly bad: (path: string, why: string) => never },
): readonly { readonly attention: string; readonly mlp: string }[] | undefined {
  if (json === undefined) return undefined;
  const { path: P, bad } = ctx;
  if (!Array.isArray(json) || json.length < 1 || json.length > 1024) {
    bad(P, "must be an array of 1..1024 entries");
  }
  const { hex } = predicateReaders(bad);
  return Object.freeze(
    arrayValue(json, { path: P, fail: bad, max: 1024 }).map((e, i) => {
      const path = `${P}[${i}]`;
      if (typeof e !== "object" || e === null || Array.isArray(e)) bad(path, "must be an object");
      const o = e as Record<string, unknown>;
      for (const key of Object.keys(o)) {
        if (key !== "attention" && key !== "mlp") bad(`${path}.${key}`, "unknown field");
      }
      return Object.freeze({
        attention: hex(o.attention, `${path}.attention`),
        mlp: hex(o.mlp, `${path}.mlp`),
      });
    }),
  );
}
