/**
 * Evidence levels: how an emulated component is known, from the weakest to the strongest
 * (`docs/glossary.md#evidence-levels`):
 * - `derived-from-source`: a published model, documentation or source code, not compared bit for
 *   bit with a GPU or a GPU-validated peer (a statistical check against GPU outputs, where one
 *   was made, is named in the component);
 * - `checked-against-peer`: bit-identical to a GPU-validated peer (the seed paper's
 *   GPU-validated emulator, or the same architecture's datapath measured on another GPU);
 * - `measured-on-gpu`: compared bit for bit with outputs captured on that GPU.
 *
 * @module
 */
import type { SfuValidationStatus } from "./sfu/mod.ts";

/** Evidence levels, weakest first. */
export const EVIDENCE_LEVELS = [
  "derived-from-source",
  "checked-against-peer",
  "measured-on-gpu",
] as const;
Object.freeze(EVIDENCE_LEVELS);

/** One of {@link EVIDENCE_LEVELS}. */
export type EvidenceLevel = typeof EVIDENCE_LEVELS[number];

/** How one component a result rests on is known. */
export interface ComponentEvidence {
  /** What the component is (one line, e.g. `datapath a100 bf16->fp32`). */
  readonly component: string;
  /** How it is known. */
  readonly level: EvidenceLevel;
}

/**
 * Tells whether a level is at least a minimum.
 *
 * @param level the level
 * @param min the minimum
 * @returns true when `level` is `min` or stronger
 * @example
 * ```ts
 * import { meetsEvidence } from "./evidence_level.ts";
 * if (!meetsEvidence("measured-on-gpu", "checked-against-peer")) throw new Error();
 * if (meetsEvidence("derived-from-source", "checked-against-peer")) throw new Error();
 * ```
 */
export function meetsEvidence(level: EvidenceLevel, min: EvidenceLevel): boolean {
  return _RANK[level] >= _RANK[min];
}

/** Each level's rank, fixed here: a caller that sorts the exported list changes no answer. */
const _RANK: Readonly<Record<EvidenceLevel, number>> = Object.freeze(
  Object.fromEntries(EVIDENCE_LEVELS.map((l, i) => [l, i])) as Record<EvidenceLevel, number>,
);

/**
 * Classifies a tensor-core datapath's `validation` text (GPU profiles): `measured...` is measured
 * on that GPU, `... checked against measured vectors on <GPU> ...` a peer, anything else source.
 *
 * @param validation the datapath's `validation` field
 * @returns the level
 * @example
 * ```ts
 * import { datapathEvidenceLevel } from "./evidence_level.ts";
 * if (datapathEvidenceLevel("measured: x") !== "measured-on-gpu") throw new Error();
 * if (datapathEvidenceLevel("published model") !== "derived-from-source") throw new Error();
 * ```
 */
export function datapathEvidenceLevel(validation: string): EvidenceLevel {
  if (/^measured\b/.test(validation)) return "measured-on-gpu";
  if (/checked against measured vectors on /.test(validation)) return "checked-against-peer";
  return "derived-from-source";
}

/**
 * The level of an SFU function's validation status. Only `exhaustive-on-gpu` compared every input
 * bit for bit with the GPU. `spot-checked` (a few outputs) and `histogram-matched` (output
 * statistics) compare the published table model with GPU outputs, but not input by input, and the
 * GPU-validated peer emulator runs tables probed on each GPU, not this model: no bit-identity to a
 * GPU or to the peer stands behind them, so they are derived from source (the component names the
 * status, so the partial check is still said). `model-only` compares with nothing; `ieee-exact`
 * is correctly rounded by definition of the stack's strict-IEEE libraries (derived from their
 * documentation).
 *
 * @param status the function's status
 * @returns the level
 * @example
 * ```ts
 * import { sfuEvidenceLevel } from "./evidence_level.ts";
 * if (sfuEvidenceLevel("spot-checked") !== "derived-from-source") throw new Error();
 * if (sfuEvidenceLevel("exhaustive-on-gpu") !== "measured-on-gpu") throw new Error();
 * ```
 */
export function sfuEvidenceLevel(status: SfuValidationStatus): EvidenceLevel {
  return status === "exhaustive-on-gpu" ? "measured-on-gpu" : "derived-from-source";
}

/**
 * The weakest entry of a list (the first of the weakest level).
 *
 * @param list components and their levels
 * @returns the weakest, or null for an empty list
 * @example
 * ```ts
 * import { weakestEvidence } from "./evidence_level.ts";
 * const w = weakestEvidence([
 *   { component: "a", level: "measured-on-gpu" },
 *   { component: "b", level: "derived-from-source" },
 * ]);
 * if (w?.component !== "b") throw new Error();
 * ```
 */
export function weakestEvidence(
  list: readonly ComponentEvidence[],
): ComponentEvidence | null {
  let out: ComponentEvidence | null = null;
  for (const e of list) if (out === null || !meetsEvidence(e.level, out.level)) out = e;
  return out;
}
