/**
 * Field readers shared by the `config.json` checks: each refuses a malformed value with
 * `CONFIG_FIELD` and a message naming the field.
 *
 * @module
 */
import { InputError, type ModelCode } from "../../errors.ts";

/** A parsed `config.json` object. */
export type _Json = Readonly<Record<string, unknown>>;

/**
 * The fields of each parsed JSON object whose number was written as a fraction or with an
 * exponent (`256.0`, `2e2`): Python's `json` reads those as floats, which HF Transformers cannot
 * use as sizes, whatever their value. Filled by the reader of `config.json`.
 */
const WRITTEN_AS_FLOAT = new WeakMap<object, Set<string>>();

/**
 * Records that a field's number was written as a fraction or with an exponent.
 *
 * @param holder the object holding the field
 * @param key the field
 */
export function _markWrittenAsFloat(holder: object, key: string): void {
  let keys = WRITTEN_AS_FLOAT.get(holder);
  if (keys === undefined) WRITTEN_AS_FLOAT.set(holder, keys = new Set());
  keys.add(key);
}

/**
 * Tells whether a field's number was written as a fraction or with an exponent (a Python float),
 * as the reader of `config.json` recorded it; false for a document built in memory.
 *
 * @param holder the object holding the field
 * @param key the field
 * @returns true when written as a float
 */
export function _writtenAsFloat(holder: object, key: string): boolean {
  return WRITTEN_AS_FLOAT.get(holder)?.has(key) === true;
}

/**
 * Tells whether a field is given: JSON `null` counts as absent, as in HF (`None`).
 *
 * @param c the config
 * @param key the field
 * @returns true when present and not null
 */
export function _given(c: _Json, key: string): boolean {
  return c[key] !== undefined && c[key] !== null;
}

/**
 * Reads an integer field.
 *
 * @param c the config
 * @param key the field
 * @param range accepted values, inclusive (`min` default 1); `floatForm`: what an integer value
 *   written as a float (`8.0`, `8e0`) is, `malformed` (default: a size HF cannot build with) or
 *   `integer` (a field the modelled releases compute with, where the float of an integer up to
 *   `max` <= 2^53 computes the integer's bits; a release whose typed config refuses the float is
 *   the caller's to mark); `otherNumbers`: what another finite number is, `malformed` (default)
 *   or `unsupported` (a field the releases only compute with, whatever its value); `booleans`:
 *   what `true` / `false` are, `unsupported` (default) or `integer` (1 / 0, then held to the
 *   integer's rules: a field the releases only compute with, where Python does the same)
 * @returns the value
 * @throws {InputError} `CONFIG_UNSUPPORTED` when absent (HF Transformers fills in its config
 *   class's default, which is not modelled), a boolean (Python computes with `True` as 1 and
 *   `False` as 0, a reading not modelled) or, with `otherNumbers: "unsupported"`, a finite number
 *   out of range; `CONFIG_FIELD` when not an integer (in value, or in how the file writes it where
 *   that is `malformed`) or out of range
 */
export function _int(
  c: _Json,
  key: string,
  range: {
    min?: number;
    max: number;
    floatForm?: "malformed" | "integer";
    otherNumbers?: "malformed" | "unsupported";
    booleans?: "unsupported" | "integer";
  },
): number {
  const raw = c[key];
  // A field the releases only compute with reads `False` as 0 and `True` as 1 (`booleans:
  // "integer"`): the integer's rules then apply, its refusal included.
  const v = typeof raw === "boolean" && range.booleans === "integer" ? Number(raw) : raw;
  const min = range.min ?? 1;
  if (v === undefined) {
    throw _bad(
      "CONFIG_UNSUPPORTED",
      `${key} is absent: HF Transformers would take its config class's default, which is not ` +
        "modelled (state it)",
    );
  }
  if (typeof v === "boolean") {
    throw _bad(
      "CONFIG_UNSUPPORTED",
      `${key} ${_show(v)} is a boolean (Python computes with it as ${Number(v)}): not modelled`,
    );
  }
  if (!Number.isSafeInteger(v) || (v as number) < min || (v as number) > range.max) {
    if (
      range.otherNumbers === "unsupported" && typeof v === "number" && Number.isFinite(v)
    ) {
      throw _bad(
        "CONFIG_UNSUPPORTED",
        `${key} ${_show(v)} is not an integer in ${min}..${range.max}: HF computes with it, ` +
          "which is not modelled",
      );
    }
    throw _bad(
      "CONFIG_FIELD",
      `${key} must be an integer in ${min}..${range.max}, got ${_show(raw)}`,
    );
  }
  if (_writtenAsFloat(c, key) && range.floatForm !== "integer") {
    throw _bad(
      "CONFIG_FIELD",
      `${key} must be an integer, but it is written as a fraction or with an exponent ` +
        "(Python reads a float, which HF Transformers cannot use)",
    );
  }
  return v as number;
}

/**
 * Reads a boolean field. Another JSON value is no malformed config: HF Transformers reads a
 * switch by Python truthiness (`0`, `""`, `[]` false; `1` true), a reading not modelled here.
 *
 * @param c the config
 * @param key the field
 * @param fallback the value when absent (HF's default)
 * @returns the value
 * @throws {InputError} `CONFIG_UNSUPPORTED` when not a boolean
 */
export function _bool(c: _Json, key: string, fallback: boolean): boolean {
  const v = c[key] ?? fallback;
  if (typeof v !== "boolean") throw _notBoolean(key, v);
  return v;
}

/**
 * The refusal of a switch given as another value than a boolean.
 *
 * @param key the field
 * @param v its value
 * @returns the error to throw (`CONFIG_UNSUPPORTED`)
 */
export function _notBoolean(key: string, v: unknown): InputError {
  return _bad(
    "CONFIG_UNSUPPORTED",
    `${key} ${_show(v)} is not a boolean: HF reads it by truthiness, which is not modelled`,
  );
}

/**
 * Checks a positive finite number.
 *
 * @param v the value
 * @param name the field, for the message
 * @returns the value
 * @throws {InputError} `CONFIG_UNSUPPORTED` for a finite number not above 0 (HF only divides by
 *   it or takes its root: it computes, and that is not modelled) or a boolean (Python computes
 *   with `True` as 1 and `False` as 0, as `_int` says); `CONFIG_FIELD` for what is not a finite
 *   number
 */
export function _positive(v: unknown, name: string): number {
  if (typeof v === "boolean") {
    throw _bad(
      "CONFIG_UNSUPPORTED",
      `${name} ${_show(v)} is a boolean (Python computes with it as ${Number(v)}): not modelled`,
    );
  }
  if (typeof v !== "number" || !Number.isFinite(v)) {
    throw _bad("CONFIG_FIELD", `${name} must be a positive number, got ${_show(v)}`);
  }
  if (v <= 0) {
    throw _bad(
      "CONFIG_UNSUPPORTED",
      `${name} ${_show(v)} is not positive: HF computes with it, which is not modelled`,
    );
  }
  return v;
}

/**
 * Shows an untrusted value in a message: JSON, at most 60 characters, printable ASCII only.
 *
 * @param v the value
 * @returns the quoted text
 */
export function _show(v: unknown): string {
  // JSON writes a number too large for a double (1e400 parses as Infinity) as 'null'.
  if (typeof v === "number" && !Number.isFinite(v)) return `'${v}' (not a finite number)`;
  const s = JSON.stringify(v) ?? String(v);
  return `'${s.length > 60 ? s.slice(0, 57) + "..." : s}'`.replace(/[^\x20-\x7e]/g, "?");
}

/**
 * A config error.
 *
 * @param code `CONFIG_UNSUPPORTED` (a feature not modelled), `CONFIG_FIELD` (malformed or
 *   self-contradicting) or `CONFIG_MODEL_TYPE`
 * @param why the reason, naming the field
 * @returns the error
 */
export function _bad(code: ModelCode, why: string): InputError {
  return new InputError(code, `Cannot use config: ${why}`);
}
