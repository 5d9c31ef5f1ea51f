/**
 * Where code built with a stack's pinned nvcc options loads: SASS of X.y on X.y to X.9, PTX of
 * X.y on X.y and later, an architecture-specific target on its compute capability alone.
 *
 * @module
 */
import assert from "node:assert/strict";
import { buildArchitectureGap } from "../../src/kernels/mod.ts";

const ARCHES = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"];

Deno.test("buildArchitectureGap(): -arch=sm_80 (SASS sm_80 and PTX compute_80) loads from compute capability 8.0 on, not on a V100 or a T4", () => {
  const stack = { cutlass: "3.5.0", nvcc: "-arch=sm_80 -O2" };
  for (const arch of ARCHES) {
    const gap = buildArchitectureGap(stack, arch);
    assert.equal(gap === null, Number(arch.slice(3)) >= 80, `${arch}: ${gap}`);
  }
  assert.equal(
    buildArchitectureGap(stack, "sm_70"),
    "nvcc '-arch=sm_80 -O2' builds SASS sm_80 (compute capability 8.0 to 8.9), PTX compute_80 " +
      "(compute capability 8.0 or later), none of which loads on sm_70 (compute capability 7.0)",
  );
});

Deno.test("buildArchitectureGap(): SASS alone stays in its major version, an 'a' target on its own compute capability; unknown targets and no nvcc pin nothing", () => {
  const sass = { nvcc: "-gencode arch=compute_80,code=sm_80" };
  assert.equal(buildArchitectureGap(sass, "sm_86"), null);
  assert.match(
    buildArchitectureGap(sass, "sm_90") ?? "",
    /SASS sm_80 .* none of which loads on sm_90/,
  );
  const ptx = { nvcc: "--gpu-architecture=compute_80" };
  assert.equal(buildArchitectureGap(ptx, "sm_120"), null);
  assert.notEqual(buildArchitectureGap(ptx, "sm_75"), null);
  const hopper = { nvcc: "-arch sm_90a" };
  assert.equal(buildArchitectureGap(hopper, "sm_90"), null);
  for (const arch of ["sm_80", "sm_100"]) assert.notEqual(buildArchitectureGap(hopper, arch), null);
  const fat = {
    nvcc: "-gencode=arch=compute_70,code=[sm_70,compute_70] -gencode arch=compute_90a,code=sm_90a",
  };
  for (const arch of ARCHES) assert.equal(buildArchitectureGap(fat, arch), null, arch);
  for (
    const nvcc of ["-arch=native", "-arch=all", "-arch=sm_100f", "-arch=compute_80 -code=sm_80"]
  ) {
    assert.equal(buildArchitectureGap({ nvcc }, "sm_70"), null, nvcc);
  }
  assert.equal(buildArchitectureGap({ pytorch: "2.8.0" }, "sm_70"), null);
  assert.equal(buildArchitectureGap({ nvcc: "-arch=sm_80" }, "gfx90a"), null);
});
