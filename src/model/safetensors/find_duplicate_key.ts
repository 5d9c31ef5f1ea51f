/**
 * Finds a repeated key in a JSON text, which `JSON.parse` would silently resolve to the last one.
 *
 * A safetensors header with the same tensor name twice is ambiguous (two readers may pick
 * different tensors), so it is refused. `JSON.parse` offers no hook that sees duplicates, so the
 * text is scanned once more, lightly: the scan relies on the text already being valid JSON and
 * only tracks strings, object and array nesting, and the "a key comes next" state. Keys are
 * compared after unescaping, so `"a"` and `"\u0061"` count as the same key. Every object at
 * every depth is checked (tensor names, fields of an entry, `__metadata__` keys).
 *
 * @module
 */

interface _Frame {
  /** Keys seen so far, or null for an array. */
  readonly keys: Set<string> | null;
  /** True right after `{` or `,` inside an object: the next string is a key. */
  expectKey: boolean;
}

/**
 * Scans a valid JSON text for an object that holds the same key twice.
 *
 * @param json text that `JSON.parse` accepts (the result is unspecified otherwise)
 * @returns the first repeated key with the path of its object, or `undefined` when all keys are
 *   unique
 * @example
 * ```ts
 * import { findDuplicateKey } from "./find_duplicate_key.ts";
 * const dup = findDuplicateKey('{"w": {"a": 1}, "\\u0077": 2}');
 * if (dup?.key !== "w" || dup.depth !== 1) throw new Error();
 * if (findDuplicateKey('{"a": {"a": [{"a": 1}]}}') !== undefined) throw new Error();
 * ```
 */
export function findDuplicateKey(
  json: string,
): { readonly key: string; readonly depth: number } | undefined {
  const stack: _Frame[] = [];
  let i = 0;
  while (i < json.length) {
    const c = json.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 0x22 /* " */) {
      const end = _stringEnd(json, i);
      if (top !== undefined && top.keys !== null && top.expectKey) {
        const key = JSON.parse(json.slice(i, end)) as string;
        if (top.keys.has(key)) return { key, depth: stack.length };
        top.keys.add(key);
        top.expectKey = false;
      }
      i = end;
      continue;
    }
    if (c === 0x7b /* { */) stack.push({ keys: new Set(), expectKey: true });
    else if (c === 0x5b /* [ */) stack.push({ keys: null, expectKey: false });
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop();
    else if (c === 0x2c /* , */ && top !== undefined && top.keys !== null) top.expectKey = true;
    i++;
  }
  return undefined;
}

/** Index just past the closing quote of the string literal that opens at `start`. */
function _stringEnd(json: string, start: number): number {
  let i = start + 1;
  while (i < json.length) {
    const c = json.charCodeAt(i);
    if (c === 0x5c /* \ */) i += 2;
    else if (c === 0x22) return i + 1;
    else i++;
  }
  return json.length;
}
