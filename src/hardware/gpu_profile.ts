/**
 * GPU hardware profiles: parsing, validation and lookup.
 *
 * A profile is hardware only (no software stack). Schema `bitaudit.gpu-profile/v1`:
 * ```
 * { "schema", "id", "name", "architecture", "computeCapability", "aliases": [..],
 *   "sources": [..], "links"?: { "nvlink": [..], "sources": [..], "note"? },
 *   "tensorCore": { "datapaths": [ DatapathJson, .. ] } }
 * ```
 * Later schema additions (SFU tables, recipes, dispatch catalogs, `links`: how the part links to
 * its peers, `gpu_links.ts`) are new optional top-level fields; existing fields keep their
 * meaning.
 *
 * @module
 */
import { type FloatFormat, formatByName, type FormatName } from "../numerics/mod.ts";
import { arr, fieldsOf, onlyKnown, str, strings } from "../json_fields.ts";
import { type Architecture, findInstructions, INSTRUCTION_CATALOG } from "./instruction_catalog.ts";
import { type InstructionFamily, parseDatapath, type ProfileDatapath } from "./tensor_core/mod.ts";
import { type GpuLinks, parseGpuLinks } from "./gpu_links.ts";

/** A validated, frozen GPU profile. */
export interface GpuProfile {
  /** Schema identifier. */
  readonly schema: "bitaudit.gpu-profile/v1";
  /** Profile id, e.g. `h100-sxm`. */
  readonly id: string;
  /** Marketing name. */
  readonly name: string;
  /** Compute architecture. */
  readonly architecture: Architecture;
  /** CUDA compute capability, e.g. `9.0`. */
  readonly computeCapability: string;
  /** Device-name strings this profile answers to. */
  readonly aliases: readonly string[];
  /** Sources for the profile as a whole. */
  readonly sources: readonly string[];
  /** How the part links to its peers (absent: not stated, so every form is possible). */
  readonly links?: GpuLinks;
  /** Tensor-core datapaths. */
  readonly tensorCore: { readonly datapaths: readonly ProfileDatapath[] };
}

/**
 * Validates a parsed profile document and freezes it.
 *
 * Every datapath must name an instruction that the architecture offers (instruction catalog).
 *
 * @param json parsed JSON
 * @returns the frozen profile
 * @throws {TypeError|RangeError} naming the bad field
 * @example
 * ```ts
 * import { parseGpuProfile } from "./gpu_profile.ts";
 * let threw = false;
 * try { parseGpuProfile({ schema: "bitaudit.gpu-profile/v1" }); } catch { threw = true; }
 * if (!threw) throw new Error("an empty profile must be refused");
 * ```
 */
export function parseGpuProfile(json: unknown): GpuProfile {
  const f = fieldsOf(json, "profile");
  onlyKnown(f, [
    "schema",
    "id",
    "name",
    "architecture",
    "computeCapability",
    "aliases",
    "sources",
    "links",
    "tensorCore",
  ]);
  if (str(f, "schema") !== "bitaudit.gpu-profile/v1") {
    throw new RangeError(`Cannot read 'profile.schema': expected 'bitaudit.gpu-profile/v1'`);
  }
  const architecture = str(f, "architecture") as Architecture;
  if (!(architecture in INSTRUCTION_CATALOG)) {
    throw new RangeError(`Cannot read 'profile.architecture': unknown '${architecture}'`);
  }
  const tc = fieldsOf(f.obj.tensorCore, "profile.tensorCore");
  onlyKnown(tc, ["datapaths"]);
  const seen = new Set<string>();
  const datapaths = arr(tc, "datapaths").map((d, i) => {
    const path = `profile.tensorCore.datapaths[${i}]`;
    const dp = parseDatapath(d, path);
    if (seen.has(dp.id)) throw new RangeError(`Cannot read '${path}.id': duplicate '${dp.id}'`);
    seen.add(dp.id);
    const q = { family: dp.family, input: dp.input.name, output: dp.output.name, k: dp.k };
    if (findInstructions(architecture, q).length === 0) {
      throw new RangeError(
        `Cannot read '${path}': ${architecture} has no ${dp.family} instruction ${dp.input.name}->${dp.output.name} with k=${dp.k}`,
      );
    }
    return dp;
  });
  return Object.freeze({
    schema: "bitaudit.gpu-profile/v1",
    id: str(f, "id", /^[a-z0-9][a-z0-9-]{0,63}$/),
    name: str(f, "name"),
    architecture,
    computeCapability: str(f, "computeCapability", /^\d+\.\d+$/),
    aliases: Object.freeze([...strings(f, "aliases")]),
    sources: Object.freeze([...strings(f, "sources")]),
    ...(f.obj.links === undefined ? {} : { links: parseGpuLinks(f.obj.links, "profile.links") }),
    tensorCore: Object.freeze({ datapaths: Object.freeze(datapaths) }),
  });
}

/** What to look up in a profile. */
export interface DatapathQuery {
  /** Instruction family; default `mma`. */
  readonly family?: InstructionFamily;
  /** Operand format. */
  readonly input: FormatName | FloatFormat;
  /** Accumulator format. */
  readonly output: FormatName | FloatFormat;
}

/**
 * Finds the datapath a profile gives for an instruction family and formats.
 *
 * @param profile a validated profile
 * @param query family (default `mma`), input and output formats
 * @returns the datapath, or undefined when the profile has none (the hardware lacks it or it is
 *   not characterised)
 * @example
 * ```ts
 * import { findDatapath, parseGpuProfile } from "./gpu_profile.ts";
 * const p = parseGpuProfile({
 *   schema: "bitaudit.gpu-profile/v1", id: "x", name: "X", architecture: "sm_80",
 *   computeCapability: "8.0", aliases: [], sources: [], tensorCore: { datapaths: [] },
 * });
 * if (findDatapath(p, { input: "bf16", output: "fp32" }) !== undefined) throw new Error();
 * ```
 */
export function findDatapath(
  profile: GpuProfile,
  query: DatapathQuery,
): ProfileDatapath | undefined {
  const family = query.family ?? "mma";
  const input = typeof query.input === "string" ? formatByName(query.input) : query.input;
  const output = typeof query.output === "string" ? formatByName(query.output) : query.output;
  return profile.tensorCore.datapaths.find((d) =>
    d.family === family && d.input === input && d.output === output
  );
}
