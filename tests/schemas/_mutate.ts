/**
 * Small structural mutations of a JSON document, chosen by plain numbers so that fast-check can
 * generate and shrink them: drop a field, add an unknown (or optional) field, change a value's
 * type, break a digest, move an integer across a bound or change a string.
 */
import fc from "fast-check";

/** A location in a document: object keys and array indices from the root. */
export type JsonPath = readonly (string | number)[];

/** What a mutation does. */
export type MutationKind = "drop" | "add" | "retype" | "digest" | "bound" | "restring";

/** A mutation: its kind and the numbers that pick where and what. */
export interface Mutation {
  readonly kind: MutationKind;
  readonly where: number;
  readonly what: number;
}

/** Field names added to objects: unknown ones, and optional fields of some schema. */
const ADDED_KEYS = [
  "extra",
  "Kind",
  "sha256",
  "recipe",
  "theta",
  "invFreqSha256",
  "sampler",
  "layerChain",
  "padTokenId",
  "attention",
  "end",
  "revoked",
  "drand",
  "tsa",
  "worker",
  "sfu",
  "firstDivergence",
  "obligation",
  "finding",
  "timestamp",
  "previousSignature",
  "expertRows",
  "keyid",
];

/** Values that replace a value (each of some JSON type) or fill an added field. */
const VALUES: readonly unknown[] = [
  "x",
  "",
  0,
  7,
  -1,
  1.5,
  2 ** 53,
  true,
  null,
  [],
  [1],
  {},
  { a: 1 },
  "0".repeat(64),
  "sampled",
  "committed-input",
  "2026-01-01T00:00:00Z",
];

/** Integers that replace an integer (around the parsers' bounds). */
const BOUNDS = [-1, 0, 1, 4095, 4096, 4097, 65536, 65537, 2 ** 20 + 1, 2 ** 24 + 1, 2 ** 53 - 1];

/** The fast-check arbitrary of mutations. */
export const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom<MutationKind>("drop", "add", "retype", "digest", "bound", "restring"),
  where: fc.nat(),
  what: fc.nat(),
});

/**
 * Applies a mutation to a copy of a document.
 *
 * @param doc the document (not modified)
 * @param m the mutation
 * @returns the mutated copy and the path it touched, or null when the document has no place for
 *   this kind (no digest, no integer)
 */
export function mutate(doc: unknown, m: Mutation): { doc: unknown; path: JsonPath } | null {
  const copy = structuredClone(doc);
  const places = _paths(copy).filter(({ path, value }) => {
    switch (m.kind) {
      case "drop":
        return path.length > 0 && typeof path.at(-1) === "string";
      case "add":
        return _isObject(value);
      case "retype":
        return path.length > 0;
      case "digest":
        return typeof value === "string" && /^[0-9a-f]{8,}$/.test(value);
      case "bound":
        return Number.isInteger(value);
      case "restring":
        return typeof value === "string";
    }
  });
  if (places.length === 0) return null;
  const { path, value } = places[m.where % places.length]!;
  const parent = path.length === 0 ? undefined : _at(copy, path.slice(0, -1));
  const key = path.at(-1);
  const set = (v: unknown) => {
    if (parent === undefined) return v;
    Object.defineProperty(parent, key!, { value: v, enumerable: true, writable: true });
    return copy;
  };
  switch (m.kind) {
    case "drop":
      delete (parent as Record<string, unknown>)[key as string];
      return { doc: copy, path };
    case "add": {
      const name = ADDED_KEYS[m.what % ADDED_KEYS.length]!;
      const v = VALUES[Math.floor(m.what / ADDED_KEYS.length) % VALUES.length];
      Object.defineProperty(value as object, name, { value: v, enumerable: true, writable: true });
      return { doc: copy, path: [...path, name] };
    }
    case "retype": {
      const others = VALUES.filter((v) => _type(v) !== _type(value));
      return { doc: set(structuredClone(others[m.what % others.length])), path };
    }
    case "digest":
      return { doc: set(_breakHex(value as string, m.what)), path };
    case "bound":
      return { doc: set(BOUNDS[m.what % BOUNDS.length]), path };
    case "restring": {
      const s = value as string;
      const options = ["", "x", `${s}x`, s.toUpperCase(), s.slice(1), " ".repeat(201)];
      return { doc: set(options[m.what % options.length]), path };
    }
  }
}

/** A hex string made invalid: an upper-case or non-hex digit, one digit short or long. */
function _breakHex(hex: string, what: number): string {
  const i = Math.floor(what / 4) % hex.length;
  switch (what % 4) {
    case 0:
      return hex.slice(0, i) + (/[a-f]/.test(hex[i]!) ? hex[i]!.toUpperCase() : "G") +
        hex.slice(i + 1);
    case 1:
      return hex.slice(0, i) + "g" + hex.slice(i + 1);
    case 2:
      return hex.slice(0, -1);
    default:
      return hex + "0";
  }
}

/** Every value with its path; of each array only the first two and the last element. */
function _paths(v: unknown, path: JsonPath = []): { path: JsonPath; value: unknown }[] {
  const out = [{ path, value: v }];
  if (Array.isArray(v)) {
    const keep = new Set([0, 1, v.length - 1].filter((i) => i >= 0 && i < v.length));
    for (const i of keep) out.push(..._paths(v[i], [...path, i]));
  } else if (_isObject(v)) {
    for (const [k, x] of Object.entries(v)) out.push(..._paths(x, [...path, k]));
  }
  return out;
}

function _at(doc: unknown, path: JsonPath): unknown {
  let at = doc;
  for (const k of path) at = (at as Record<string | number, unknown>)[k];
  return at;
}

function _isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function _type(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isSafeInteger(v) ? "integer" : "number";
  return typeof v;
}
