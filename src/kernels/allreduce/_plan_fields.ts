/**
 * Field validators of `parseAllReducePlan` (private to the folder): each returns the field frozen
 * or throws a `RangeError`/`TypeError` naming it.
 *
 * @module
 */
import type { NcclCbd } from "./nccl_cbd.ts";

const _CBD_KEYS = [
  "countLo",
  "countMid",
  "countHi",
  "chunkGrainsLo",
  "chunkGrainsMid",
  "chunkGrainsHi",
] as const;

/** The cbd fields, checked against the channel count (one channel reads only `Lo`). */
export function _cbd(value: unknown, nChannels: number): NcclCbd {
  const o = _object(value, "cbd");
  _keys(o, _CBD_KEYS);
  const f = Object.fromEntries(_CBD_KEYS.map((k) => [k, _int(o[k], `cbd.${k}`, 0)])) as Record<
    typeof _CBD_KEYS[number],
    number
  >;
  for (const k of ["chunkGrainsLo", "chunkGrainsMid", "chunkGrainsHi"] as const) {
    if (f[k] >= 2 ** 21) throw new RangeError(`Cannot parse plan: 'cbd.${k}' exceeds its 21 bits`);
  }
  if (nChannels === 1 && (f.countMid !== 0 || f.countHi !== 0)) {
    throw new RangeError(
      "Cannot parse plan: one channel reads only countLo; countMid/countHi not 0",
    );
  }
  if (nChannels === 2 && f.countMid !== 0) {
    throw new RangeError("Cannot parse plan: two channels have no middle; countMid not 0");
  }
  const used: [number, number][] = [[f.countLo, f.chunkGrainsLo]];
  if (nChannels > 2) used.push([f.countMid, f.chunkGrainsMid]);
  if (nChannels > 1) used.push([f.countHi, f.chunkGrainsHi]);
  for (const [count, grains] of used) {
    if (count > 0 && grains === 0) {
      throw new RangeError("Cannot parse plan: a channel with elements has a zero chunk size");
    }
  }
  return Object.freeze(f);
}

/** A ring: a permutation of the ranks starting at rank 0. */
export function _ring(value: unknown, ws: number, name: string): readonly number[] {
  if (!Array.isArray(value)) throw new TypeError(`Cannot parse plan: '${name}' is not an array`);
  const seen = new Set<number>();
  for (const r of value) {
    if (!Number.isInteger(r) || r < 0 || r >= ws || seen.has(r)) {
      throw new RangeError(`Cannot parse plan: '${name}' is not a permutation of 0..${ws - 1}`);
    }
    seen.add(r);
  }
  if (seen.size !== ws) {
    throw new RangeError(`Cannot parse plan: '${name}' has ${seen.size} ranks, expected ${ws}`);
  }
  if (value[0] !== 0) {
    throw new RangeError(`Cannot parse plan: '${name}' must start at rank 0 (NCCL's ring.index)`);
  }
  return Object.freeze([...value] as number[]);
}

/** A tree: children lists with one root, no cycle, at most 3 children each. */
export function _tree(
  value: unknown,
  ws: number,
  name: string,
): { readonly down: readonly (readonly number[])[] } {
  const o = _object(value, name);
  _keys(o, ["down"]);
  if (!Array.isArray(o.down) || o.down.length !== ws) {
    throw new RangeError(`Cannot parse plan: '${name}.down' must list children for ${ws} ranks`);
  }
  const parent = new Array<number>(ws).fill(-1);
  const down = o.down.map((kids: unknown, r: number) => {
    if (!Array.isArray(kids) || kids.length > 3) {
      throw new RangeError(`Cannot parse plan: '${name}.down[${r}]' is not a list of <= 3 ranks`);
    }
    for (const c of kids) {
      if (!Number.isInteger(c) || c < 0 || c >= ws || c === r || parent[c] !== -1) {
        throw new RangeError(`Cannot parse plan: '${name}.down[${r}]' has a bad child ${c}`);
      }
      parent[c] = r;
    }
    return Object.freeze([...kids] as number[]);
  });
  const roots = parent.flatMap((p, r) => p === -1 ? [r] : []);
  if (roots.length !== 1) {
    throw new RangeError(`Cannot parse plan: '${name}' has ${roots.length} roots, expected 1`);
  }
  for (let r = 0; r < ws; r++) {
    let x = r;
    for (let steps = 0; parent[x] !== -1; steps++) {
      if (steps > ws) throw new RangeError(`Cannot parse plan: '${name}' has a cycle`);
      x = parent[x] as number;
    }
  }
  return Object.freeze({ down: Object.freeze(down) });
}

/** A plain object. */
export function _object(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`Cannot parse plan: '${name}' is not an object`);
  }
  return value as Record<string, unknown>;
}

/** Refuses fields outside `allowed`. */
export function _keys(o: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) throw new RangeError(`Cannot parse plan: unknown field '${k}'`);
  }
}

/** A safe integer at least `min`. */
export function _int(value: unknown, name: string, min: number): number {
  if (typeof value !== "number") {
    throw new TypeError(`Cannot parse plan: '${name}' is not a number`);
  }
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`Cannot parse plan: '${name}' ${value} is not an integer >= ${min}`);
  }
  return value;
}
