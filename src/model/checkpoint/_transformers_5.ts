/**
 * Which HF Transformers release line a stack names: the config readings differ between 4.5x and
 * 5 (typed configs, `rope_parameters`, `num_local_experts`, untied stored heads).
 *
 * @module
 */

/**
 * Whether a stack's `transformers` component names a Transformers 5 release (`"5"`, `"5.x"`,
 * `"5.18.0"`); any other (`"4.57.x"`, `"4.5x"`), or none, reads as 4.5x.
 *
 * @param transformers the stack's `transformers` component, or undefined
 * @returns true for a 5.x release
 * @example
 * ```ts
 * import { _isTransformers5 } from "./_transformers_5.ts";
 * if (!_isTransformers5("5.x") || _isTransformers5("4.57.1") || _isTransformers5(undefined)) {
 *   throw new Error();
 * }
 * ```
 */
export function _isTransformers5(transformers: string | undefined): boolean {
  return /^5(\.|$)/.test(transformers ?? "");
}
