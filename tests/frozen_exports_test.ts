/**
 * Exported tables an answer depends on cannot be changed by an in-process caller: the instruction
 * catalog and the FAIL findings are frozen (lists and shapes included), and `meetsEvidence` ranks
 * levels from its own copy (reversing the exported EVIDENCE_LEVELS made
 * `meetsEvidence("derived-from-source", "measured-on-gpu")` true); every table any module door
 * exports is deeply frozen (pushing a rate onto DEFAULT_RATES made honest attestations INVALID,
 * and reversing EVIDENCE_LEVELS changed the evidence a PASS recorded).
 */
import assert from "node:assert/strict";
import { EVIDENCE_LEVELS, INSTRUCTION_CATALOG, meetsEvidence } from "./../src/hardware/mod.ts";
import { FAIL_FINDINGS } from "./../src/verify/mod.ts";
import { ALLOWED } from "../tools/check_imports.ts";

Deno.test("the instruction catalog and the FAIL findings are frozen, nested parts too", () => {
  assert.ok(Object.isFrozen(FAIL_FINDINGS));
  assert.ok(Object.isFrozen(INSTRUCTION_CATALOG));
  for (const [arch, list] of Object.entries(INSTRUCTION_CATALOG)) {
    assert.ok(Object.isFrozen(list), arch);
    for (const s of list) assert.ok(Object.isFrozen(s) && Object.isFrozen(s.inputs), arch);
  }
});

Deno.test("meetsEvidence() ranks from its own copy, and the exported list cannot be reordered", () => {
  assert.throws(() => (EVIDENCE_LEVELS as unknown as string[]).reverse(), TypeError);
  assert.equal(meetsEvidence("derived-from-source", "measured-on-gpu"), false);
  assert.equal(meetsEvidence("measured-on-gpu", "derived-from-source"), true);
});

/**
 * The library's doors: every module a user imports (each folder's `mod.ts`, as the import gate
 * lists the folders; the CLI's door is its entry point, not a library).
 */
const DOORS = [
  "../mod.ts",
  "../src/errors.ts",
  ...Object.keys(ALLOWED).filter((f) => f !== "cli").map((f) => `../src/${f}/mod.ts`),
];

/** Why a value is not deeply frozen, or null (functions and classes are not tables). */
function _mutable(v: unknown, seen: Set<unknown>): string | null {
  if (typeof v !== "object" || v === null || seen.has(v)) return null;
  seen.add(v);
  if (ArrayBuffer.isView(v)) return "a typed array (its elements stay writable)";
  if (v instanceof Map || v instanceof Set) return `a ${v.constructor.name}`;
  if (!Object.isFrozen(v)) return "not frozen";
  for (const [k, x] of Object.entries(v)) {
    const why = _mutable(x, seen);
    if (why !== null) return `.${k}: ${why}`;
  }
  return null;
}

Deno.test("every table a module door exports is frozen, nested parts too (DEFAULT_RATES.push changed later checks)", async () => {
  const mutable: string[] = [];
  for (const door of DOORS) {
    const ns = await import(new URL(door, import.meta.url).href);
    for (const [name, value] of Object.entries(ns)) {
      const why = _mutable(value, new Set());
      if (why !== null) mutable.push(`${door} ${name}: ${why}`);
    }
  }
  assert.deepEqual(mutable, []);
});
