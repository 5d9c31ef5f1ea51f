/**
 * A datapath "checked against a GPU-validated peer" (its `validation` names the GPU whose
 * datapath is measured, e.g. an H200 datapath checked against measured vectors on H100) is only as
 * good as its equality with that peer: every field the block FMA reads must be the peer's, the
 * peer's datapath must itself be measured, and the peer's captures must match on it bit for bit.
 * Without this, a peer-labelled profile could drift from its peer while results kept the label.
 *
 * Source and licence of the captures: tests/vectors/khattak-mikaitis/README.md and LICENCE.
 */
import assert from "node:assert/strict";
import { readVectorSet, type VectorSet } from "../../../src/assets/mod.ts";
import {
  datapathEvidenceLevel,
  type GpuProfile,
  parseGpuProfile,
  type ProfileDatapath,
} from "../../../src/hardware/mod.ts";
import type { FormatName } from "../../../src/numerics/mod.ts";
import { checkVectorSet } from "../../../src/verify/check_vector_set.ts";

const DIR = new URL("../../../profiles/gpu/", import.meta.url);
const RAW: Record<string, Record<string, unknown>> = Object.fromEntries(
  [...Deno.readDirSync(DIR)].filter((e) => e.name.endsWith(".json")).map((e) => [
    e.name.replace(/\.json$/, ""),
    JSON.parse(Deno.readTextFileSync(new URL(e.name, DIR))),
  ]),
);
const PROFILES: GpuProfile[] = Object.values(RAW).map((r) => parseGpuProfile(r)).sort((a, b) =>
  a.id.localeCompare(b.id)
);
/** Provenance fields: what a datapath cites, not how it computes. Every other field must agree. */
const PROVENANCE = new Set(["sources", "validation", "note"]);
const PEER = /checked against measured vectors on (\S+)/;
const MEASURED = /^measured: tests\/vectors\/khattak-mikaitis\/(\S+) (\S+)/;

/** A datapath as its profile file writes it, without its provenance fields. */
function arithmetic(profileId: string, dpId: string): Record<string, unknown> {
  const tc = RAW[profileId]?.tensorCore as { datapaths: Record<string, unknown>[] };
  const raw = tc.datapaths.find((d) => d.id === dpId);
  assert.ok(raw !== undefined, `${profileId} has no datapath ${dpId}`);
  return Object.fromEntries(Object.entries(raw).filter(([k]) => !PROVENANCE.has(k)));
}

/** The profile a peer name (`H100`, `A100`, `L40S`) stands for: the one holding that alias. */
function peerProfile(name: string): GpuProfile {
  const hits = PROFILES.filter((p) => p.aliases.includes(name));
  assert.equal(hits.length, 1, `peer '${name}' must be one profile's alias`);
  return hits[0]!;
}

interface PeerCell {
  readonly profile: GpuProfile;
  readonly dp: ProfileDatapath;
  readonly peer: GpuProfile;
  readonly peerDp: ProfileDatapath;
}

const CELLS: PeerCell[] = PROFILES.flatMap((profile) =>
  profile.tensorCore.datapaths.filter((d) =>
    datapathEvidenceLevel(d.validation) === "checked-against-peer"
  ).map((dp) => {
    const name = PEER.exec(dp.validation)?.[1];
    assert.ok(name !== undefined, `${profile.id} ${dp.id}: no peer named`);
    const peer = peerProfile(name);
    const peerDp = peer.tensorCore.datapaths.find((d) => d.id === dp.id);
    assert.ok(peerDp !== undefined, `${profile.id} ${dp.id}: peer ${peer.id} has no such datapath`);
    return { profile, dp, peer, peerDp };
  })
);

Deno.test("every peer-checked datapath names a measured datapath of its peer and computes as it does, field for field", () => {
  const perProfile: Record<string, number> = {};
  for (const { profile, dp, peer, peerDp } of CELLS) {
    const at = `${profile.id} ${dp.id} (peer ${peer.id})`;
    assert.notEqual(peer.id, profile.id, at);
    assert.equal(peer.architecture, profile.architecture, at);
    assert.equal(datapathEvidenceLevel(peerDp.validation), "measured-on-gpu", at);
    assert.deepEqual(arithmetic(profile.id, dp.id), arithmetic(peer.id, peerDp.id), at);
    perProfile[profile.id] = (perProfile[profile.id] ?? 0) + 1;
  }
  // What the support matrix lists as peer-checked: a test that silently covers nothing is no guard.
  assert.deepEqual(perProfile, {
    "a30": 4,
    "gh200": 8,
    "h100-nvl": 8,
    "h100-pcie": 8,
    "h200": 8,
    "l4": 6,
    "l40": 6,
    "rtx-1000-ada": 6,
  });
});

const sets = new Map<string, Promise<VectorSet>>();
const readSet = (folder: string) => {
  const root = new URL("../../vectors/khattak-mikaitis/", import.meta.url).pathname;
  if (!sets.has(folder)) sets.set(folder, readVectorSet(`${root}${folder}`));
  return sets.get(folder)!;
};

for (const profileId of [...new Set(CELLS.map((c) => c.profile.id))]) {
  Deno.test(`the peer's captures match ${profileId}'s peer-checked datapaths bit for bit`, async () => {
    for (const { profile, dp, peer, peerDp } of CELLS.filter((c) => c.profile.id === profileId)) {
      const m = MEASURED.exec(peerDp.validation);
      assert.ok(m !== null, `${peer.id} ${peerDp.id}: no capture named`);
      const [, folder, file] = m as unknown as [string, string, string];
      const set = await readSet(folder);
      const one = { ...set, outputs: set.outputs.filter((o) => o.file === file) };
      assert.equal(one.outputs.length, 1, `${folder} ${file}`);
      const input = folder.split("/")[1]!.toLowerCase() as FormatName;
      const [r] = checkVectorSet(profile, { set: one, input });
      assert.equal(r?.datapath, dp.id, `${profile.id}: ${folder} ${file} ran another datapath`);
      assert.deepEqual(r.mismatches, [], `${profile.id} ${dp.id} on ${folder} ${file}`);
      assert.equal(r.matched, 5000);
    }
  });
}
