/**
 * Assertions on coded errors, typed by each class's code union: a misspelt code, or a code of
 * another class, fails `deno check` instead of failing (or passing) at run time.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { BitauditError } from "../src/errors.ts";
import type { CliErrorCode } from "../src/cli/exit_codes.ts";

/** A coded error class (`AssetError`, `InputError`, `UsageError`). */
export type CodedClass<E extends BitauditError> = abstract new (...args: never[]) => E;

/**
 * A predicate for `assert.throws` / `assert.rejects`: the error is of the class and has the code.
 *
 * @param cls the class
 * @param code one of the class's codes
 * @returns the predicate
 */
export function isCode<E extends BitauditError>(
  cls: CodedClass<E>,
  code: E["code"],
): (e: unknown) => boolean {
  return (e) => e instanceof cls && e.code === code;
}

/**
 * Asserts that `fn` throws an error of the class with the code.
 *
 * @param fn the call
 * @param cls the class
 * @param code one of the class's codes
 */
export function assertCode<E extends BitauditError>(
  fn: () => unknown,
  cls: CodedClass<E>,
  code: E["code"],
): void {
  assert.throws(fn, (e) => _check(e, cls, code));
}

/**
 * Asserts that `fn` rejects with an error of the class with the code.
 *
 * @param fn the call
 * @param cls the class
 * @param code one of the class's codes
 */
export async function assertRejectsCode<E extends BitauditError>(
  fn: () => Promise<unknown>,
  cls: CodedClass<E>,
  code: E["code"],
): Promise<void> {
  await assert.rejects(fn, (e) => _check(e, cls, code));
}

/**
 * Asserts that the CLI's stderr reports one of the codes, as its one-line `error [CODE]: ...`.
 *
 * @param stderr what the CLI printed
 * @param codes the accepted codes
 */
export function assertCliCode(stderr: string, ...codes: CliErrorCode[]): void {
  const line = stderr.split("\n").find((l) => l.startsWith("error ["));
  assert.ok(line !== undefined, `no coded error in: ${stderr}`);
  const code = line.slice("error [".length, line.indexOf("]"));
  assert.ok((codes as string[]).includes(code), `expected ${codes.join(" or ")}, got ${line}`);
}

function _check<E extends BitauditError>(e: unknown, cls: CodedClass<E>, code: E["code"]): true {
  assert.ok(e instanceof cls, `expected ${cls.name} [${code}], got ${e}`);
  assert.equal(e.code, code, String(e));
  return true;
}
