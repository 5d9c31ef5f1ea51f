/**
 * Checks of the demo's RFC 3161 tokens (from its in-process TSA) on the files `demo --out` keeps:
 * both verify (with our checker and with `openssl ts -verify` where it exists), and a tampered
 * token, a token for another message and a TSA the trust root does not pin each fail with a named
 * reason, for the attestation's token (`check --timestamp`) and the announcement's (carried in the
 * attestation).
 */
import assert from "node:assert/strict";
import {
  buildTrustRoot,
  checkAnnouncement,
  createLocalTsa,
  decodeBase64,
  decodePem,
  encodeBase64,
  encodeSpki,
  encodeStatement,
  generateKeyPair,
  keyId,
  parseTrustRoot,
  signEnvelope,
  type Statement,
  verifyTimestampToken,
} from "../../src/attest/mod.ts";
import { checkFile } from "../../src/cli/commands/check.ts";

const flipLast = (b: Uint8Array) => {
  const c = b.slice();
  c[c.length - 1] = c[c.length - 1]! ^ 1;
  return c;
};
const sigOf = (env: { signatures: { sig: string }[] }) =>
  decodeBase64(env.signatures[0]!.sig, { alphabet: "any" });

/**
 * Runs the token checks on a demo output folder.
 *
 * @param dir the folder given to `demo --out`
 */
export async function demoTimestampVariants(dir: string): Promise<void> {
  const read = async (f: string) => JSON.parse(await Deno.readTextFile(`${dir}/${f}`));
  const anchor = decodePem(await Deno.readTextFile(`${dir}/tsa.pem`), "CERTIFICATE");
  const attestation = await read("attestation.dsse.json");
  const announcement = await read("announcement.dsse.json");
  const annToken = await Deno.readFile(`${dir}/announcement.tsr`);
  const attToken = await Deno.readFile(`${dir}/attestation.tsr`);
  const ann = await verifyTimestampToken(annToken, {
    message: sigOf(announcement),
    anchors: [anchor],
  });
  assert.equal(ann.verified, true, ann.reason);
  assert.equal(ann.time, Date.parse("2023-08-23T15:15:10Z"));
  const att = await verifyTimestampToken(attToken, {
    message: sigOf(attestation),
    anchors: [anchor],
  });
  assert.equal(att.verified, true, att.reason);
  await _opensslVerifies(dir);

  // The attestation's token, given to `check --timestamp`.
  const trustRoot = await read("trust-root.json");
  const variant = async (name: string, o: { token?: Uint8Array; root?: unknown }) => {
    const token = `${dir}/${name}.tsr`;
    await Deno.writeFile(token, o.token ?? attToken);
    const root = `${dir}/${name}.root.json`;
    await Deno.writeTextFile(root, JSON.stringify(o.root ?? trustRoot));
    const r = await checkFile({
      attestation: `${dir}/attestation.dsse.json`,
      trustRoot: root,
      timestamp: token,
    });
    assert.equal(r.valid, false, name);
    return r.checks.find((c) => c.check === "timestamp")?.detail ?? "";
  };
  const { tsa: _pinned, ...unpinned } = trustRoot;
  const stranger = await createLocalTsa({
    name: "another TSA",
    notBefore: 0,
    notAfter: Date.now() + 1e6,
  });
  const otherRoot = {
    ...trustRoot,
    tsa: buildTrustRoot([], {
      start: "2023-01-01T00:00:00Z",
      tsa: [{ certificate: stranger.anchor, name: "another TSA" }],
    }).tsa,
  };
  assert.match(await variant("tampered", { token: flipLast(attToken) }), /does not verify/);
  assert.match(await variant("other-message", { token: annToken }), /another message/);
  assert.match(await variant("unpinned", { root: unpinned }), /lists no TSA/);
  assert.match(await variant("other-tsa", { root: otherRoot }), /does not verify/);

  // The announcement's token, as `check` reads it from the attestation.
  const statement = JSON.parse(new TextDecoder().decode(decodeBase64(attestation.payload)));
  const audit = statement.predicate.audit;
  const rootOf = (doc: unknown) => parseTrustRoot(JSON.stringify(doc));
  const root = rootOf(trustRoot);
  const annCheck = async (token: Uint8Array, tr = root, envelope = audit.announcement.envelope) =>
    await checkAnnouncement(envelope, {
      trustRoot: tr,
      audit: {
        auditId: audit.auditId,
        k: audit.k,
        checkpoint: audit.checkpoint,
        drand: audit.beacon.drand,
      },
      timestamp: token,
    });
  const good = await annCheck(decodeBase64(audit.announcement.timestamp));
  assert.ok(!("why" in good), "why" in good ? good.why : "");
  const why = async (p: Promise<{ why: string } | object>) => {
    const r = await p;
    return "why" in r ? (r as { why: string }).why : "";
  };
  assert.match(await why(annCheck(flipLast(annToken))), /RFC 3161 timestamp: .*does not verify/);
  assert.match(
    await why(annCheck(attToken)),
    /RFC 3161 timestamp: the token is for another message/,
  );
  assert.match(await why(annCheck(annToken, rootOf(unpinned))), /lists no TSA/);
  // A borrowed token: another trusted key signs an announcement of its own (stating an earlier
  // time) and appends the demo announcement's signature, which the demo's token covers but which
  // does not verify over this payload. The token must date nothing here.
  const other = await generateKeyPair();
  const withOther = rootOf({
    ...trustRoot,
    keys: [...trustRoot.keys, {
      keyid: keyId(other.publicKey),
      publicKey: encodeBase64(encodeSpki(other.publicKey)),
      role: "inspector",
      validFor: { start: "2023-01-01T00:00:00Z" },
    }],
  });
  const annEnv = audit.announcement.envelope;
  const annSt = JSON.parse(new TextDecoder().decode(decodeBase64(annEnv.payload)));
  annSt.predicate.announcedAt = "2023-08-23T15:15:30Z";
  const own = await signEnvelope(encodeStatement(annSt as Statement), {
    payloadType: annEnv.payloadType,
    keys: [other],
  });
  const honest = await annCheck(annToken, withOther, own);
  assert.match("why" in honest ? honest.why : "", /another message/);
  const decoyed = { ...own, signatures: [...own.signatures, annEnv.signatures[0]] };
  assert.match(
    await why(annCheck(annToken, withOther, decoyed)),
    /RFC 3161 timestamp covers signature 1, which no inspector key valid at .* made/,
  );
  assert.match(await why(annCheck(annToken, rootOf(otherRoot))), /does not verify/);
}

async function _opensslVerifies(dir: string): Promise<void> {
  for (const name of ["announcement", "attestation"]) {
    const env = JSON.parse(await Deno.readTextFile(`${dir}/${name}.dsse.json`));
    await Deno.writeFile(`${dir}/${name}.sig`, sigOf(env));
    const r = await new Deno.Command("openssl", {
      args: ["ts", "-verify", "-in", `${name}.tsr`, "-data", `${name}.sig`, "-CAfile", "tsa.pem"],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(r.success, true, new TextDecoder().decode(r.stderr));
  }
}
