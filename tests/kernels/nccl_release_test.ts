/**
 * `ncclReleaseGap()`: a record's stated NCCL release against the one the ring and tree replays
 * follow (2.27: spec `parallel_and_vllm.md` §A2.3; review h60 F2, v2.18.3 chunks a ring otherwise).
 */
import assert from "node:assert/strict";
import { NCCL_REPLAY_RELEASE, ncclReleaseGap, statedReleases } from "../../src/kernels/mod.ts";

Deno.test("ncclReleaseGap() names a stated NCCL release other than 2.27.x, however the component is written", () => {
  assert.deepEqual([...NCCL_REPLAY_RELEASE], [2, 27]);
  for (
    const components of [
      { nccl: "2.27.3" },
      { NCCL: "2.27.3-1+cuda12.8" },
      { nccl_version: "v2.27.7" },
      { "NCCL version": "NCCL 2.27" },
      { pytorch: "2.8.0", cuda: "12.8" }, // none stated
      { nccl: "as shipped" }, // no release (the component comparison names it)
    ]
  ) {
    assert.equal(ncclReleaseGap(components), null, JSON.stringify(components));
  }
  for (
    const [components, shown] of [
      [{ nccl: "2.18.3" }, "nccl '2.18.3'"],
      [{ NCCL: "2.28.3-1+cuda12.9" }, "NCCL '2.28.3-1+cuda12.9'"],
      [{ nccl_version: "2.26" }, "nccl_version '2.26'"],
      [{ nccl: "2.27.3", "NCCL version": "3.0" }, "NCCL version '3.0'"],
    ] as const
  ) {
    assert.equal(
      ncclReleaseGap(components),
      `the NCCL replay follows release 2.27's chunking; the stated ${shown} is not modelled`,
    );
  }
  // The forms PyTorch and NCCL print: torch.cuda.nccl.version()'s tuple (what the prover guide
  // says to state) and NCCL_VERSION_CODE; 2.27.3 written so had been refused as "release 2".
  for (const value of ["(2, 27, 3)", "(2, 27, 3, 'a0')", "22703", " (2,27,5) "]) {
    assert.equal(ncclReleaseGap({ nccl: value }), null, value);
  }
  assert.equal(
    ncclReleaseGap({ nccl: "(2, 18, 3)" }),
    "the NCCL replay follows release 2.27's chunking; the stated nccl '(2, 18, 3)' is not modelled",
  );
  assert.equal(
    ncclReleaseGap({ nccl: "21805" }),
    "the NCCL replay follows release 2.27's chunking; the stated nccl '21805' is not modelled",
  );
  // A lone number is no release: said so, not called another release.
  assert.equal(
    ncclReleaseGap({ nccl: "2" }),
    "the NCCL replay follows release 2.27's chunking; the stated nccl '2' names no major and " +
      "minor release (state it as 2.27.x)",
  );
  // NCCL_VERSION is a setting (the component comparison names it), not a library's release.
  assert.equal(ncclReleaseGap({ NCCL_VERSION: "2.18.3" }), null);
});

Deno.test("statedReleases() reads each component of one library, escaping its value", () => {
  const got = statedReleases({ nccl: "2.18.3\u001b[2J", torch: "2.8.0" }, "nccl");
  assert.equal(got.length, 1);
  assert.deepEqual(got[0]!.release, [2, 18, 3]);
  assert.ok(!got[0]!.component.includes("\u001b"), got[0]!.component);
});
