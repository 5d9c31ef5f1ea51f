/**
 * One whole-number vLLM engine argument as a stack profile pins it in its `flags` component
 * (`--max-num-seqs 8`, `--max_num_batched_tokens=4096`): argparse keeps the last occurrence and
 * vLLM's parser reads `_` as `-`. A value other than a plain positive number, or the setting named
 * in any other form (a config file, a JSON override, an abbreviation), is not read here. vLLM 0.11's
 * `FlexibleArgumentParser` keeps argparse's `allow_abbrev`, so `--max-num-seq 8` sets
 * `max_num_seqs` as the whole name does ({@link vllmOptionAbbreviation}). Settings a derivation does not
 * model are found by name in any component ({@link _vllmUnmodelled}).
 *
 * @module
 */
import type { StackProfile } from "./stack_profile.ts";
import { vllmOptionAbbreviation } from "./vllm_option_abbreviation.ts";

/** A vLLM engine argument of a stack: unset, pinned to a number, or given in a form not read. */
export type VllmFlag =
  | { readonly kind: "unset" }
  | {
    readonly kind: "pinned";
    readonly value: number;
    /** Where the value comes from, for a reason (`--max-num-seqs 8 pinned by the stack`). */
    readonly rule: string;
  }
  | { readonly kind: "unread"; readonly reason: string };

/**
 * The stack's setting of a whole-number vLLM engine argument.
 *
 * @param stack the stack profile (its components; `flags` is read)
 * @param name the argument's dashed name (`max-num-seqs`)
 * @returns the setting
 */
export function _vllmFlag(stack: Pick<StackProfile, "components">, name: string): VllmFlag {
  const short = vllmOptionAbbreviation(stack, [name]);
  if (short !== null) {
    return {
      kind: "unread",
      reason: `the stack's ${short.shown} abbreviates --${name} (vLLM's parser takes unique ` +
        "prefixes), not read here",
    };
  }
  const words = name.split("-").join("[-_]");
  const flag = new RegExp(`(?:^|\\s)--${words}(?:=|\\s+)(\\S+)`, "g");
  const flags = Object.hasOwn(stack.components, "flags") ? stack.components.flags! : "";
  const last = [...flags.matchAll(flag)].map((m) => m[1]!).at(-1);
  if (last !== undefined) {
    if (!/^[1-9][0-9]{0,8}$/.test(last)) {
      return { kind: "unread", reason: `the stack's --${name} '${last}' is not read here` };
    }
    return { kind: "pinned", value: Number(last), rule: `--${name} ${last} pinned by the stack` };
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

/**
 * Why a vLLM derivation is not modelled for a stack that names a setting it does not model, in any
 * component and in any form (`--long-prefill-token-threshold 64`, a JSON override), or writes one
 * of its options in the `flags` component as vLLM's parser also reads them: a unique prefix
 * (`--long-prefill 64`, {@link vllmOptionAbbreviation}) or a short alias (`-dcp 2`).
 *
 * @param stack the stack profile (its components)
 * @param o `settings`: the settings' names (matched anywhere in a component's text); `options`:
 *   their dashed option names, whose abbreviations count too; `aliases`: short aliases (each with
 *   the option it stands for; matched as whole flag words); `effect`: what they change,
 *   completing "which ..." (`changes where vLLM ends a prompt's chunk`)
 * @returns the reason, naming the first setting found (with `_` for `-`), or null when none is
 */
export function _vllmUnmodelled(
  stack: Pick<StackProfile, "components">,
  o: {
    readonly settings: RegExp;
    readonly options: readonly string[];
    readonly aliases?: readonly (readonly [alias: string, option: string])[];
    readonly effect: string;
  },
): string | null {
  const named = Object.values(stack.components).map((v) => o.settings.exec(v)?.[0]).find((m) =>
    m !== undefined
  );
  if (named !== undefined) {
    return `the stack sets ${named.replaceAll("-", "_")}, which ${o.effect}: not modelled`;
  }
  const flags = Object.hasOwn(stack.components, "flags") ? stack.components.flags! : "";
  const words = new Set(flags.split(/\s+/).map((w) => w.split("=")[0]));
  const alias = o.aliases?.find(([a]) => words.has(a));
  const abbr = vllmOptionAbbreviation(stack, o.options);
  const [shown, option] = alias !== undefined
    ? [`'${alias[0]}'`, alias[1]]
    : abbr !== null
    ? [abbr.shown, abbr.name]
    : [];
  if (shown === undefined) return null;
  return `the stack's ${shown} sets ${
    option!.replaceAll("-", "_")
  }, which ${o.effect}: not modelled`;
}
