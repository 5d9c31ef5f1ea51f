/**
 * DSSE envelopes, in-toto statements, Ed25519 keys and signatures, and the trust root.
 *
 * Signing: build a Statement, encode it, sign the bytes into a DSSE envelope (one or more
 * inspectors). Verifying: parse the envelope strictly, verify it against the keys the trust root
 * says were valid, then parse the *verified payload bytes* as a Statement.
 *
 * Verdicts: `signVerdict(report, { keys, store, engine, time })` turns an audit report into the
 * attestation `bitaudit audit` writes (statement built by `buildVerdictPredicate`, encoded by the
 * one `encodeStatement`); `checkAttestation` reads it back through `parseVerdictPredicate`, which
 * refuses any missing, unknown or mistyped field with a `VerdictPredicateCode`.
 *
 * @example
 * ```ts
 * import {
 *   encodeStatement, generateKeyPair, IN_TOTO_PAYLOAD_TYPE, keyId, parseEnvelope, parseStatement,
 *   signEnvelope, STATEMENT_TYPE, verifyEnvelope,
 * } from "./mod.ts";
 * const inspector = await generateKeyPair();
 * const statement = {
 *   _type: STATEMENT_TYPE,
 *   subject: [{ name: "claim:log/0", digest: { sha256: "ab".repeat(32) } }],
 *   predicateType: "https://bitaudit.example/audit-verdict/v1",
 *   predicate: { verdict: "PASSED" },
 * } as const;
 * const env = await signEnvelope(encodeStatement(statement), {
 *   payloadType: IN_TOTO_PAYLOAD_TYPE, keys: [inspector],
 * });
 * const received = parseEnvelope(JSON.stringify(env));
 * const res = await verifyEnvelope(received, { trustedKeys: [inspector.publicKey] });
 * if (!res.verified || res.validKeyIds[0] !== keyId(inspector.publicKey)) throw new Error();
 * if (parseStatement(res.payload).predicate?.verdict !== "PASSED") throw new Error();
 * ```
 * @module
 */
export {
  ANNOUNCED_ID_PREFIX,
  type AnnouncedAudit,
  announcedAuditId,
  type Announcement,
  ANNOUNCEMENT_PREDICATE_TYPE,
  announcementStatement,
  checkAnnouncement,
  datedBeforeCheckpoint,
  parseAnnouncement,
} from "./announcement/mod.ts";
export {
  type Base64Alphabet,
  decodeBase64,
  type DecodeBase64Options,
  encodeBase64,
} from "./base64.ts";
export {
  DRAND_SCHEMES,
  type DrandBinding,
  drandBinding,
  drandChainHash,
  type DrandChainInfo,
  drandMessage,
  type DrandRejection,
  type DrandRound,
  drandRoundTime,
  type DrandScheme,
  type DrandVerification,
  MAX_DRAND_INFO_BYTES,
  parseDrandChainInfo,
  parseDrandRound,
  reverifyDrandBinding,
  type TrustedDrandChain,
  trustedDrandChains,
  verifyDrandRound,
} from "./beacon/mod.ts";
export { buildTrustRoot } from "./build_trust_root.ts";
export {
  checkAttestation,
  type CheckItem,
  type CheckReport,
  type RecomputePolicy,
  type RecomputeRecord,
  UNSIGNED_READ_BYTES,
} from "./check_attestation.ts";
export {
  type AssetDifference,
  checkReleaseAssets,
  compareReleaseAssets,
  MAX_NAMED_ASSET_DIFFERENCES,
  type ReleaseAssets,
  type ReleaseAssetsComparison,
} from "./compare_release_assets.ts";
export { type AddCheck, checkTrustInputs, type TrustLabels } from "./check_trust_inputs.ts";
export {
  addSignature,
  type DsseEnvelope,
  type DsseSignature,
  signEnvelope,
  type SignEnvelopeOptions,
  type SigningKey,
} from "./dsse.ts";
export {
  MAX_ENVELOPE_BYTES,
  MAX_ENVELOPE_SIGNATURES,
  MAX_ENVELOPE_VALUES,
  parseEnvelope,
  type ParseEnvelopeOptions,
} from "./envelope.ts";
export { type Ed25519KeyPair, generateKeyPair, publicKeyFromPrivate } from "./generate_key_pair.ts";
export { judgeSigningKeys, type SigningKeysJudgement } from "./judge_signing_keys.ts";
export { keyId } from "./key_id.ts";
export {
  keyValidAt,
  type KeyValidity,
  type KeyValidityQuery,
  trustedKeysAt,
} from "./key_valid_at.ts";
export {
  type CheckpointBinding,
  checkpointBinding,
  type CheckpointVerification,
  cosignNoteEd25519,
  formatSignedNote,
  formatVerifierKey,
  isNoteKeyName,
  MAX_NOTE_CHARS,
  MAX_NOTE_SIGNATURES,
  NOTE_COSIGNATURE_ED25519,
  NOTE_ED25519,
  noteKeyId,
  type NoteSignature,
  type NoteSigner,
  type NoteVerification,
  type NoteVerifierKey,
  noteVerifierKey,
  parseSignedNote,
  parseVerifierKey,
  signCheckpoint,
  type SignedNote,
  signNoteEd25519,
  verifyCheckpoint,
  verifyNote,
} from "./note/mod.ts";
export { pae } from "./pae.ts";
export { type AttestationFile, readAttestation } from "./read_attestation.ts";
export { parseVerdictPredicate, type VerdictPredicateCode } from "./parse_verdict_predicate.ts";
export { type DecodeOptions, decodePem, encodePem } from "./pem.ts";
export { decodePkcs8, decodePrivateKeyPem, encodePkcs8, encodePrivateKeyPem } from "./pkcs8.ts";
export { parseRfc3339 } from "./rfc3339.ts";
export { type SignedVerdict, signVerdict, type SignVerdictOptions } from "./sign_verdict.ts";
export {
  ITEM_RESULT_PAYLOAD_TYPE,
  itemResultOf,
  MAX_SIGNED_RESULT_BYTES,
  openItemResult,
  readItemResultUnchecked,
  signItemResult,
  verifyItemResultSignature,
  type WorkerKeys,
  workerKeys,
} from "./signed_item_result.ts";
export { AUDIT_PLAN_PAYLOAD_TYPE, signAuditPlan, verifyAuditPlan } from "./signed_audit_plan.ts";
export { sign, type SignatureCheck, verify } from "./signature.ts";
export { type DatedInput, signedBeforeInputs } from "./signed_before_inputs.ts";
export {
  MAX_CLOCK_SKEW_MS,
  type RequiredInstant,
  requiredInstants,
  type SigningTimeEvidence,
  type SigningTimeSource,
} from "./signing_time.ts";
export {
  type ParsedSigstoreBundle,
  parseSigstoreBundle,
  SIGSTORE_BUNDLE_V03,
  sigstoreBundle,
} from "./sigstore_bundle.ts";
export { decodePublicKeyPem, decodeSpki, encodePublicKeyPem, encodeSpki } from "./spki.ts";
export {
  encodeStatement,
  IN_TOTO_PAYLOAD_TYPE,
  parseStatement,
  type Statement,
  STATEMENT_TYPE,
  type StatementSubject,
} from "./statement.ts";
export {
  checkSignatureTimestamp,
  createLocalTsa,
  type LocalTsa,
  MAX_TIMESTAMP_TOKEN_BYTES,
  timestampImprintMismatch,
  timestampResponseDer,
  type TimestampVerification,
  trustedTsaAnchors,
  verifyTimestampToken,
} from "./timestamp/mod.ts";
export {
  type KeyRole,
  MAX_TRUST_ROOT_KEYS,
  parseTrustRoot,
  TRUST_ROOT_MEDIA_TYPE,
  type TrustRoot,
  type TrustRootKey,
} from "./trust_root.ts";
export {
  buildVerdictPredicate,
  type BuildVerdictPredicateOptions,
  VERDICT_PREDICATE_TYPE,
  type VerdictAudit,
  type VerdictDifference,
  type VerdictPredicate,
  type VerdictResult,
  verdictResult,
  type VerdictSfuUse,
  type VerdictWorkerKey,
  type VerdictWorkers,
  type VerifierInfo,
} from "./verdict_predicate.ts";
export { verdictStatement } from "./verdict_statement.ts";
export {
  type EnvelopeVerification,
  MAX_VERIFY_BYTES,
  type SignatureResult,
  verifyEnvelope,
  type VerifyEnvelopeOptions,
} from "./verify_envelope.ts";
