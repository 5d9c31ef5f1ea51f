/**
 * One whole-number vLLM engine argument as a stack profile pins it in its `flags` component
 * (`--max-num-seqs 8`, `--max_num_batched_tokens=4096`): argparse keeps the last occurrence and
 * vLLM's parser reads `_` as `-`. A value other than a plain positive number, or the setting named
 * in any other form (a config file, a JSON override), is not read here.
 *
 * @module
 */
import type { StackProfile } from "./stack_profile.ts";

/** A vLLM engine argument of a stack: unset, pinned to a number, or given in a form not read. */
export type VllmFlag =
  | { readonly kind: "unset" }
  | { readonly kind: "pinned"; readonly value: number }
  | { readonly kind: "unread"; readonly reason: string };

/**
 * The stack's setting of a whole-number vLLM engine argument.
 *
 * @param stack the stack profile (its components; `flags` is read)
 * @param name the argument's dashed name (`max-num-seqs`)
 * @returns the setting
 */
export function _vllmFlag(stack: Pick<StackProfile, "components">, name: string): VllmFlag {
  const words = name.split("-").join("[-_]");
  const flag = new RegExp(`(?:^|\\s)--${words}(?:=|\\s+)(\\S+)`, "g");
  const flags = Object.hasOwn(stack.components, "flags") ? stack.components.flags! : "";
  const last = [...flags.matchAll(flag)].map((m) => m[1]!).at(-1);
  if (last !== undefined) {
    if (!/^[1-9][0-9]{0,8}$/.test(last)) {
      return { kind: "unread", reason: `the stack's --${name} '${last}' is not read here` };
    }
    return { kind: "pinned", value: Number(last) };
  }
  const named = new RegExp(words, "i");
  if (Object.values(stack.components).some((v) => named.test(v))) {
    return {
      kind: "unread",
      reason: `the stack sets ${name.replaceAll("-", "_")} in a form not read here`,
    };
  }
  return { kind: "unset" };
}
