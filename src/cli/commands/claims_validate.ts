/**
 * `bitaudit claims validate`: checks every line of a claim log on its own against the published
 * claim-record JSON Schema (`schemas/claim-record.json`, draft 2020-12) and the strict record
 * parser, and names each invalid line with the JSON path of its first defect. The chain between
 * lines (`seq`, `prev`, one `logId`) is `claims root`'s check, not this one's.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { Command } from "@commander-js/extra-typings";
import { MAX_RECORD_VALUES, parseClaimRecord } from "../../claims/mod.ts";
import { clipText } from "../../clip_text.ts";
import { InputError } from "../../errors.ts";
import { parseStrictJson, StrictJsonError } from "../../json_strict.ts";
import { splitLines } from "../../split_lines.ts";
import { EXIT } from "../exit_codes.ts";
import { MAX_LOG_BYTES } from "../load_inputs.ts";
import { printJson, printText } from "../output.ts";
import { readTextFile } from "../read_json_file.ts";
import { countNoun } from "../count_noun.ts";

/** Where the claim-record schema is read from: `schemas/` at the repository root. */
export const CLAIM_RECORD_SCHEMA: URL = new URL(
  "../../../schemas/claim-record.json",
  import.meta.url,
);

/** Most records one log may hold (as `parseClaimLog`). */
const MAX_RECORDS = 1_000_000;
/** Most characters of one key a path shows (keys come from the log, so they are clipped). */
const MAX_KEY = 64;
/** Most characters of a path, and of a message, one invalid record shows. */
const MAX_SHOWN = 512;

/** One invalid line of a log. */
export interface InvalidRecord {
  /** Line number (1-based). */
  readonly line: number;
  /** JSON path of the first defect, e.g. `$.predicate.workload.m`. */
  readonly path: string;
  /** What is wrong there. */
  readonly message: string;
  /** Which check refused it: strict JSON, the schema, or the record parser. */
  readonly by: "json" | "schema" | "parser";
}

/** What `claims validate` found. */
export interface ClaimLogValidation {
  /** Lines (records) read. */
  readonly records: number;
  /** The invalid ones, in line order. */
  readonly invalid: readonly InvalidRecord[];
}

/**
 * Builds `claims validate`.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { claimsValidateCommand } from "./claims_validate.ts";
 * if (claimsValidateCommand().name() !== "validate") throw new Error();
 * ```
 */
export function claimsValidateCommand(): Command {
  return new Command("validate")
    .description(
      "check every record of a claim log against schemas/claim-record.json and the strict parser",
    )
    .requiredOption("--log <file>", "claims.jsonl")
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const text = await readTextFile(opts.log, { maxBytes: MAX_LOG_BYTES });
      const v = await validateClaimLog(text);
      if (opts.json) printJson({ log: opts.log, ...v, valid: v.records - v.invalid.length });
      else {
        for (const r of v.invalid) printText(`line ${r.line}: ${r.path}: ${r.message} (${r.by})`);
        printText(`${v.records - v.invalid.length} of ${countNoun(v.records, "record")} valid`);
      }
      Deno.exitCode = v.invalid.length === 0 ? EXIT.OK : EXIT.FAIL;
    });
}

/**
 * Validates each line of a claim log: strict JSON, then the claim-record schema, then
 * `parseClaimRecord` (which also checks what the schema cannot state, such as the subject naming
 * the record's own log position).
 *
 * @param text the log text (JSON Lines)
 * @param schema the claim-record schema's location (default {@link CLAIM_RECORD_SCHEMA})
 * @returns the record count and the invalid lines
 * @throws {InputError} `LOG_EMPTY` (no line), `LOG_TOO_LARGE` (too many lines)
 * @throws {Deno.errors.NotFound} when the schema file is missing
 * @example
 * ```ts ignore
 * const { invalid } = await validateClaimLog(await Deno.readTextFile("claims.jsonl"));
 * ```
 */
export async function validateClaimLog(
  text: string,
  schema: URL = CLAIM_RECORD_SCHEMA,
): Promise<ClaimLogValidation> {
  const lines = splitLines(text, MAX_RECORDS + 1);
  if (lines === null) {
    throw new InputError(
      "LOG_TOO_LARGE",
      `Cannot validate claim log: more than ${MAX_RECORDS} records`,
    );
  }
  if (lines.at(-1) === "") lines.pop();
  if (lines.length === 0) {
    throw new InputError("LOG_EMPTY", "Cannot validate claim log: no records");
  }
  if (lines.length > MAX_RECORDS) {
    throw new InputError("LOG_TOO_LARGE", `Cannot validate claim log: ${lines.length} records`);
  }
  const check = await _compile(schema);
  const invalid: InvalidRecord[] = [];
  lines.forEach((line, i) => {
    const why = _check(line, i + 1, check);
    if (why !== null) invalid.push({ line: i + 1, ...why });
  });
  return { records: lines.length, invalid };
}

type Validate = ((value: unknown) => boolean) & { errors?: readonly AjvError[] | null };
type AjvError = {
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
};

async function _compile(schema: URL): Promise<Validate> {
  let text: string;
  try {
    text = await Deno.readTextFile(schema);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
    throw new Deno.errors.NotFound(
      `Cannot validate claim log: the schema ${
        fileURLToPath(schema)
      } is missing (schemas/ ships with src/)`,
    );
  }
  // Loaded here, not at the top: every other command would pay for Ajv at start-up.
  const { Ajv2020 } = await import("ajv/dist/2020.js");
  return new Ajv2020({ strict: true }).compile(JSON.parse(text)) as Validate;
}

function _check(line: string, n: number, validate: Validate): Omit<InvalidRecord, "line"> | null {
  const why = _defect(line, n, validate);
  // Paths and messages quote the log's own keys and values: short, and on one line.
  return why === null
    ? null
    : { path: _short(why.path, MAX_SHOWN), message: _short(why.message, MAX_SHOWN), by: why.by };
}

function _defect(line: string, n: number, validate: Validate): Omit<InvalidRecord, "line"> | null {
  let json: unknown;
  try {
    json = parseStrictJson(line, { maxValues: MAX_RECORD_VALUES });
  } catch (e) {
    if (!(e instanceof StrictJsonError)) throw e;
    return { path: e.path, message: e.reason, by: "json" };
  }
  if (!validate(json)) {
    const err = validate.errors?.[0];
    const key = err?.params.additionalProperty ?? err?.params.missingProperty;
    const pointer = `${err?.instancePath ?? ""}${
      typeof key === "string" ? `/${_escape(key)}` : ""
    }`;
    return { path: _jsonPath(json, pointer), message: err?.message ?? "is invalid", by: "schema" };
  }
  try {
    parseClaimRecord(json, `line ${n}`);
    return null;
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    const m = /^Cannot read claim \(line \d+\): '([^']*)' (.*)$/s.exec(e.message);
    if (m === null) return { path: "$", message: e.message, by: "parser" };
    return { path: m[1]!.startsWith("$") ? m[1]! : `$.${m[1]}`, message: m[2]!, by: "parser" };
  }
}

/** JSON Pointer token escaping (RFC 6901 section 3). */
function _escape(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Text from the log, its white-space runs as one space and at most `max` characters. */
function _short(text: string, max: number): string {
  return clipText(text.replace(/\s+/gu, " "), max);
}

/**
 * A JSON Pointer into `doc` as a JSON path: `.name`, `["odd name"]`, `[index]`, each key shown
 * short (`MAX_KEY`).
 */
function _jsonPath(doc: unknown, pointer: string): string {
  let path = "$";
  let at: unknown = doc;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    const index = Array.isArray(at) && /^(0|[1-9][0-9]*)$/.test(key);
    path += index
      ? `[${key}]`
      : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) && key.length <= MAX_KEY
      ? `.${key}`
      : `[${JSON.stringify(_short(key, MAX_KEY))}]`;
    at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[key] : undefined;
  }
  return path;
}
