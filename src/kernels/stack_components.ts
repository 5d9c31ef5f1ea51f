/**
 * `componentMismatch`: whether the library versions a record states agree with the versions its
 * stack profile pins. The stack profile is what the verifier recomputes with (its reduction trees,
 * FlashAttention build, RoPE reading, vLLM paths all follow its versions), so a record that names
 * a stack pinning PyTorch 2.8.0 and states PyTorch 2.4.0 describes a run the recomputation is not.
 *
 * A stack's value is read as: an exact release (`2.8.0`: the record's release, the leading
 * numbers of its value, must be the same, missing parts read as 0, so `2.8` and `2.8.0+cu128`
 * agree); a series (`4.5x`: a release whose numbers continue the prefix, 4.50 to 4.59; `5.x`: any
 * 5.*); a lower bound (`> 9.15.0`); anything else (`as recorded in the dispatch catalog`) pins
 * nothing. The stack's own value, copied into the record, agrees. Component names are compared without case, `-` as `_`, `torch` as `pytorch`.
 *
 * @module
 */

/** How a record's components disagree with its stack's. */
export interface ComponentMismatch {
  /**
   * `contradiction`: a stated release the stack's value excludes; `unreadable`: a value with no
   * release numbers where the stack pins one, which cannot be compared.
   */
  readonly kind: "contradiction" | "unreadable";
  /** One line naming the component, the stated value and the stack's. */
  readonly reason: string;
}

/**
 * Compares the components a record states with its stack profile's.
 *
 * @param stack the stack profile's `components`
 * @param claimed the record's `software.components`
 * @returns the first mismatch, or null when every shared component agrees
 * @example
 * ```ts
 * import { componentMismatch } from "./stack_components.ts";
 * const stack = { pytorch: "2.8.0", transformers: "4.5x", cublas: "as recorded in the catalog" };
 * if (componentMismatch(stack, { torch: "2.8.0+cu128", transformers: "4.57.1" }) !== null) {
 *   throw new Error();
 * }
 * if (componentMismatch(stack, { pytorch: "2.4.0" })?.kind !== "contradiction") throw new Error();
 * if (componentMismatch(stack, { cublas: "12.4.5" }) !== null) throw new Error();
 * ```
 */
export function componentMismatch(
  stack: Readonly<Record<string, string>>,
  claimed: Readonly<Record<string, string>>,
): ComponentMismatch | null {
  const pinned = new Map(Object.entries(stack).map(([k, v]) => [_name(k), v]));
  for (const [key, value] of Object.entries(claimed)) {
    const rule = pinned.get(_name(key));
    // The stack's own words (`4.5x` copied into the record) agree with themselves.
    const accepts = rule === undefined || rule.trim() === value.trim() ? undefined : _rule(rule);
    if (accepts === undefined) continue;
    const release = _release(value);
    const said = `components.${key} '${value}'`;
    if (release === null) {
      return {
        kind: "unreadable",
        reason: `${said} has no release number to compare with the stack's '${rule}'`,
      };
    }
    if (!accepts(release)) {
      return { kind: "contradiction", reason: `${said}, where the stack pins '${rule}'` };
    }
  }
  return null;
}

/** A component's name as compared: lower case, `-` as `_`, `torch` as `pytorch`. */
function _name(key: string): string {
  const k = key.toLowerCase().replaceAll("-", "_");
  return k === "torch" ? "pytorch" : k;
}

/** The leading release numbers of a value (`v2.8.0+cu128` -> [2, 8, 0]), or null. */
function _release(value: string): number[] | null {
  const m = /^\s*v?(\d+(?:\.\d+)*)/.exec(value);
  return m === null ? null : m[1]!.split(".").map(Number);
}

/** What a stack's value accepts, or undefined for a value that pins nothing. */
function _rule(value: string): ((release: number[]) => boolean) | undefined {
  const v = value.trim();
  const exact = /^v?(\d+(?:\.\d+)*)$/.exec(v);
  if (exact !== null) {
    const want = exact[1]!.split(".").map(Number);
    return (r) => _compare(r, want) === 0;
  }
  const series = /^(\d+)\.(\d*)x$/.exec(v);
  if (series !== null) {
    const [, major, minorPrefix] = series;
    // `4.5x`: minors of more digits than the prefix that begin with it (50..59), not 4.5 itself.
    const minor = (r: number[]) => String(r[1] ?? "");
    return (r) =>
      r[0] === Number(major) &&
      (minorPrefix === "" ||
        (minor(r).startsWith(minorPrefix!) && minor(r).length > minorPrefix!.length));
  }
  const above = /^>\s*(\d+(?:\.\d+)*)$/.exec(v);
  if (above !== null) {
    const floor = above[1]!.split(".").map(Number);
    return (r) => _compare(r, floor) > 0;
  }
  return undefined;
}

/** Compares two releases part by part, missing parts read as 0. */
function _compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
