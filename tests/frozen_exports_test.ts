/**
 * Exported tables an answer depends on cannot be changed by an in-process caller: the instruction
 * catalog and the FAIL findings are frozen (lists and shapes included), and `meetsEvidence` ranks
 * levels from its own copy (reversing the exported EVIDENCE_LEVELS made
 * `meetsEvidence("derived-from-source", "measured-on-gpu")` true).
 */
import assert from "node:assert/strict";
import { EVIDENCE_LEVELS, INSTRUCTION_CATALOG, meetsEvidence } from "./../src/hardware/mod.ts";
import { FAIL_FINDINGS } from "./../src/verify/mod.ts";

Deno.test("the instruction catalog and the FAIL findings are frozen, nested parts too", () => {
  assert.ok(Object.isFrozen(FAIL_FINDINGS));
  assert.ok(Object.isFrozen(INSTRUCTION_CATALOG));
  for (const [arch, list] of Object.entries(INSTRUCTION_CATALOG)) {
    assert.ok(Object.isFrozen(list), arch);
    for (const s of list) assert.ok(Object.isFrozen(s) && Object.isFrozen(s.inputs), arch);
  }
});

Deno.test("meetsEvidence() ranks from its own copy: reordering the exported list changes nothing", () => {
  const copy = [...EVIDENCE_LEVELS];
  (EVIDENCE_LEVELS as unknown as string[]).reverse();
  try {
    assert.equal(meetsEvidence("derived-from-source", "measured-on-gpu"), false);
    assert.equal(meetsEvidence("measured-on-gpu", "derived-from-source"), true);
  } finally {
    (EVIDENCE_LEVELS as unknown as string[]).splice(0, copy.length, ...copy);
  }
});
