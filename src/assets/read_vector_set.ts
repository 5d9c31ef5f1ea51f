/**
 * Reads a directory of measured tensor-core vectors (the Khattak & Mikaitis layout: `a_*`, `b_*`,
 * `c_*_fp32`, `d_*_fp32`, optional `d_*_fp16`, optional `capture.json`).
 *
 * @module
 */
import { parseStrictJson } from "../json_strict.ts";
import { readAtMost } from "../read_at_most.ts";
import { InputError } from "../errors.ts";
import { quoteForTerminal, quoteShort } from "../escape_text.ts";
import { parseVectorText } from "./parse_vector_text.ts";
import { ioCause } from "../io_cause.ts";

/** How the accumulator of an output file was set on the device. */
export type AccumulatorSource = "c_file" | "c_file_rounded_to_fp16" | "zero";

/** One measured output file of a vector set. */
export interface VectorOutput {
  /** File name, e.g. `d_H100_fp32.txt`. */
  readonly file: string;
  /** Output format of the device result. */
  readonly format: "fp32" | "fp16";
  /** Instruction that produced it, as recorded (empty when unknown). */
  readonly instruction: string;
  /** Accumulator used on the device. */
  readonly accumulator: AccumulatorSource;
  /** Device results as fp32 patterns (fp16 results widened exactly). */
  readonly d: Uint32Array;
}

/** A measured vector set: per case K products, one accumulator, one or two outputs. */
export interface VectorSet {
  /** Directory it was read from. */
  readonly dir: string;
  /** Products per case. */
  readonly k: number;
  /** Number of cases. */
  readonly cases: number;
  /** A operands, case-major, fp32 patterns (`cases * k`). */
  readonly a: Uint32Array;
  /** B operands, same layout. */
  readonly b: Uint32Array;
  /** Accumulators as fp32 patterns. */
  readonly c: Uint32Array;
  /** Output files. */
  readonly outputs: readonly VectorOutput[];
  /**
   * Input format of a and b as `capture.json` records it (`bf16`, `fp16`, `tf32`, `e4m3`,
   * `e5m2`), when the set has one: a check must run the set through this format's datapath.
   */
  readonly inputFormat?: string;
}

/** Input formats a `capture.json` may name (the tensor-core inputs measured). */
const CAPTURE_INPUTS: readonly string[] = ["bf16", "fp16", "tf32", "e4m3", "e5m2"];

const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Most output files (`d_*_fp32.txt`, `d_*_fp16.txt`) one set may hold. Each is read (up to
 * 64 MiB) and checked case by case, so their count bounds the work: the measured sets hold one
 * or two (an fp32 and an fp16 output of one instruction); 16 leaves room for several
 * instructions and accumulators of one input format.
 */
export const MAX_VECTOR_OUTPUTS = 16;

const OUTPUT_FILE = /^d_.*_fp(32|16)\.txt$/;

/** The files of one vector set, wherever they come from (a directory, the asset store). */
export interface VectorSetFiles {
  /** File names of the set (no folders). */
  readonly names: readonly string[];
  /**
   * Reads one file as text (at most 64 MiB).
   * @throws {InputError} `VECTOR_SET_TOO_LARGE` or the source's own coded error
   */
  read(name: string): Promise<string>;
}

/**
 * Reads and validates a vector-set directory.
 *
 * @param dir directory path
 * @returns the parsed set
 * @throws {InputError} `VECTOR_SET_*` codes for missing, malformed or inconsistent files
 * @example
 * ```ts ignore
 * const set = await readVectorSet("tests/vectors/khattak-mikaitis/H100/bf16");
 * ```
 */
export async function readVectorSet(dir: string): Promise<VectorSet> {
  const names = await _list(dir);
  return await parseVectorSet(dir, { names, read: (name) => _read(dir, name) });
}

/**
 * Parses and validates the files of a vector set (shared by {@link readVectorSet} and the
 * manifest-checked bundled sets of `src/resolve`).
 *
 * @param dir where the set comes from (for messages and `VectorSet.dir`)
 * @param files the set's file names and a reader
 * @returns the parsed set
 * @throws {InputError} `VECTOR_SET_*` codes for missing, malformed or inconsistent files;
 *   `VECTOR_SET_LAYOUT`, before any file is read, for more than {@link MAX_VECTOR_OUTPUTS} output
 *   files
 * @example
 * ```ts
 * import { parseVectorSet } from "./read_vector_set.ts";
 * const text: Record<string, string> = {
 *   "a_X_bf16.txt": "3f800000\n", "b_X_bf16.txt": "3f800000\n",
 *   "c_X_fp32.txt": "0".repeat(32) + "\n", "d_X_fp32.txt": "001111111" + "0".repeat(23) + "\n",
 * };
 * const set = await parseVectorSet("x", { names: Object.keys(text), read: async (n) => text[n]! });
 * if (set.cases !== 1 || set.k !== 1 || set.outputs[0]?.d[0] !== 0x3f800000) throw new Error();
 * ```
 */
export async function parseVectorSet(dir: string, files: VectorSetFiles): Promise<VectorSet> {
  const names = [...files.names];
  const outputNames = names.filter((n) => OUTPUT_FILE.test(n)).sort();
  if (outputNames.length > MAX_VECTOR_OUTPUTS) {
    // Refused before any file is read; the names are the folder's: quoted short and printable.
    throw new InputError(
      "VECTOR_SET_LAYOUT",
      `Cannot read vector set ${quoteForTerminal(dir)}: ${outputNames.length} d_* output files ` +
        `(${quoteShort(outputNames[0]!, 40)} to ${quoteShort(outputNames.at(-1)!, 40)}), ` +
        `above the ${MAX_VECTOR_OUTPUTS} a set may hold (measured sets hold one or two)`,
    );
  }
  const one = (re: RegExp, what: string): string => {
    const hits = names.filter((n) => re.test(n));
    if (hits.length !== 1) {
      throw new InputError(
        "VECTOR_SET_LAYOUT",
        `Cannot read vector set '${dir}': expected exactly one ${what} file, found ${hits.length}`,
      );
    }
    return hits[0] as string;
  };
  const aName = one(/^a_.*\.txt$/, "a_*");
  const a = parseVectorText(await files.read(aName), { file: aName, kind: "hex" });
  const b = parseVectorText(await files.read(one(/^b_.*\.txt$/, "b_*")), {
    file: "b",
    kind: "hex",
  });
  const c = parseVectorText(await files.read(one(/^c_.*_fp32\.txt$/, "c_*_fp32")), {
    file: "c",
    kind: "binary",
  });
  if (a.rows !== b.rows || a.width !== b.width || c.rows !== a.rows) {
    throw new InputError(
      "VECTOR_SET_SHAPE",
      `Cannot read vector set '${dir}': a is ${a.rows}x${a.width}, b ${b.rows}x${b.width}, c ${c.rows} rows`,
    );
  }
  const { outputs: capture, inputFormat, productsPerCase } = await _capture(dir, files);
  if (productsPerCase !== undefined && productsPerCase !== a.width) {
    throw new InputError(
      "VECTOR_SET_CAPTURE",
      `Cannot read vector set '${dir}': capture.json says ${productsPerCase} products per case, ` +
        `the a and b files hold ${a.width}`,
    );
  }
  const outputs: VectorOutput[] = [];
  for (const file of outputNames) {
    const d = parseVectorText(await files.read(file), { file, kind: "binary" });
    if (d.rows !== a.rows) {
      throw new InputError(
        "VECTOR_SET_SHAPE",
        `Cannot read vector set '${dir}': '${file}' has ${d.rows} rows, expected ${a.rows}`,
      );
    }
    const format = file.endsWith("_fp16.txt") ? "fp16" : "fp32";
    const meta = capture[file];
    if (meta?.format !== undefined && meta.format !== format) {
      throw new InputError(
        "VECTOR_SET_CAPTURE",
        `Cannot read vector set '${dir}': capture.json says '${file}' is ${meta.format}, ` +
          `its name says ${format}`,
      );
    }
    outputs.push({
      file,
      format,
      instruction: meta?.instruction ?? "",
      accumulator: meta?.accumulator ?? (format === "fp16" ? "c_file_rounded_to_fp16" : "c_file"),
      d: d.values,
    });
  }
  if (outputs.length === 0) {
    throw new InputError("VECTOR_SET_LAYOUT", `Cannot read vector set '${dir}': no d_* files`);
  }
  return {
    dir,
    k: a.width,
    cases: a.rows,
    a: a.values,
    b: b.values,
    c: c.values,
    outputs,
    ...(inputFormat === undefined ? {} : { inputFormat }),
  };
}

async function _list(dir: string): Promise<string[]> {
  try {
    const out: string[] = [];
    for await (const e of Deno.readDir(dir)) if (e.isFile) out.push(e.name);
    return out;
  } catch (e) {
    // The runtime's refusal is the caller's missing permission (the CLI's PERMISSION).
    if (e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError("VECTOR_SET_MISSING", `Cannot read vector set '${dir}': ${_why(e)}`);
  }
}

/**
 * Why a folder cannot be listed, in the words the CLI's readers use ("no such folder", "not a
 * folder", "permission denied"), else the system's reason: its message's first line, the path
 * (already in the error) left out.
 */
function _why(e: unknown): string {
  if (e instanceof Deno.errors.NotFound) return "no such folder";
  if (e instanceof Deno.errors.NotADirectory) return "not a folder";
  if (e instanceof Deno.errors.PermissionDenied) return "permission denied";
  return ioCause(e).replace(/: readdir '.*'$/, "");
}

async function _read(dir: string, name: string): Promise<string> {
  const path = `${dir}/${name}`;
  const bytes = await readAtMost(path, MAX_FILE_BYTES);
  if (bytes === null) {
    throw new InputError("VECTOR_SET_TOO_LARGE", `Cannot read '${path}': larger than 64 MiB`);
  }
  return new TextDecoder().decode(bytes);
}

interface _CaptureEntry {
  instruction?: string;
  accumulator?: AccumulatorSource;
  format?: string;
}

interface _Capture {
  outputs: Record<string, _CaptureEntry>;
  inputFormat?: string;
  productsPerCase?: number;
}

async function _capture(dir: string, files: VectorSetFiles): Promise<_Capture> {
  if (!files.names.includes("capture.json")) return { outputs: {} };
  let json: unknown;
  try {
    json = parseStrictJson(await files.read("capture.json"));
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(
      "VECTOR_SET_CAPTURE",
      `Cannot read '${dir}/capture.json': not strict JSON`,
    );
  }
  const top = json as { outputs?: unknown; input_format?: unknown; products_per_case?: unknown };
  const outputs = top?.outputs;
  if (typeof outputs !== "object" || outputs === null) {
    throw new InputError("VECTOR_SET_CAPTURE", `Cannot read '${dir}/capture.json': no 'outputs'`);
  }
  const result: Record<string, _CaptureEntry> = {};
  for (const [file, v] of Object.entries(outputs as Record<string, unknown>)) {
    if (typeof v !== "object" || v === null || Array.isArray(v)) {
      throw new InputError(
        "VECTOR_SET_CAPTURE",
        `Cannot read '${dir}/capture.json': outputs.${file} is not an object`,
      );
    }
    const e = v as { instruction?: unknown; accumulator?: unknown; output_format?: unknown };
    const acc = e.accumulator;
    if (acc !== "c_file" && acc !== "c_file_rounded_to_fp16" && acc !== "zero") {
      throw new InputError(
        "VECTOR_SET_CAPTURE",
        `Cannot read '${dir}/capture.json': outputs.${file}.accumulator must be c_file, c_file_rounded_to_fp16 or zero`,
      );
    }
    const format = e.output_format;
    if (format !== undefined && format !== "fp32" && format !== "fp16") {
      throw new InputError(
        "VECTOR_SET_CAPTURE",
        `Cannot read '${dir}/capture.json': outputs.${file}.output_format must be fp32 or fp16`,
      );
    }
    result[file] = {
      accumulator: acc,
      ...(typeof e.instruction === "string" ? { instruction: e.instruction } : {}),
      ...(format === undefined ? {} : { format }),
    };
  }
  return { outputs: result, ..._captureInput(dir, top) };
}

/** The set-wide facts of a capture.json: input format and products per case, when given. */
function _captureInput(
  dir: string,
  top: { input_format?: unknown; products_per_case?: unknown },
): { inputFormat?: string; productsPerCase?: number } {
  const input = top.input_format;
  if (input !== undefined && (typeof input !== "string" || !CAPTURE_INPUTS.includes(input))) {
    throw new InputError(
      "VECTOR_SET_CAPTURE",
      `Cannot read '${dir}/capture.json': input_format must be one of ${CAPTURE_INPUTS.join(", ")}`,
    );
  }
  const k = top.products_per_case;
  if (k !== undefined && (typeof k !== "number" || !Number.isSafeInteger(k) || k < 1)) {
    throw new InputError(
      "VECTOR_SET_CAPTURE",
      `Cannot read '${dir}/capture.json': products_per_case must be a positive integer`,
    );
  }
  return {
    ...(input === undefined ? {} : { inputFormat: input }),
    ...(k === undefined ? {} : { productsPerCase: k }),
  };
}
