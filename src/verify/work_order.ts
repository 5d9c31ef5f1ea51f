/**
 * A work order: one plan item with what a worker needs to check it belongs to the audit and to
 * its log (the plan digest, audit id, log id, root, seed and population), so a pool worker can
 * recompute it without the plan file, and the id of the serve that ordered it, which the worker
 * echoes in the result it signs (so a serve can tell its own results from an earlier serve's,
 * replayed). Encoded as canonical JSON, read back strictly, checked by recomputing the item
 * digest. An order comes from the NATS server, where anyone who can publish can send one, so what
 * the worker applies is bound by what it signs: the plan digest and the serve id are echoed in the
 * result, the audit id, root and seed bound by the item digest it names, the log id, population
 * and the item's kind and claimed fingerprint checked against the worker's own log (which that
 * root names), and the budget a record signed into the result, which the merge compares with the
 * plan's. It names the plan's signers (key ids), so that a worker run on the inspector's key
 * refuses to work: an inspector's key never doubles as a worker key.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { quoteShort } from "../escape_text.ts";
import { canonicalJson, type ClaimLog, LOG_ID_PATTERN } from "../claims/mod.ts";
import { AUDIT_ID_PATTERN } from "./audit_id.ts";
import { type AuditPlan, itemDigest, MAX_PLAN_SIGNATURES, type PlanItem } from "./audit_plan.ts";
import { exactObject, readDocument, requireCanonical, type Shape } from "./_exact_object.ts";
import { HEX64, readBudget, readPlanItem, SERVE_ID } from "./_shapes.ts";
import { planItemMismatch } from "./plan_item_log.ts";

/** Format tag of work orders. */
export const WORK_ORDER_FORMAT = "bitaudit/audit-work-order/v4";

/** One item to recompute, self-describing. */
export interface WorkOrder {
  /** {@link WORK_ORDER_FORMAT}. */
  readonly format: typeof WORK_ORDER_FORMAT;
  /** SHA-256 of the plan's bytes. */
  readonly plan: string;
  /**
   * Key ids of the plan's signers (its `signatures`, in order): a worker refuses to work under a
   * key among them, since an inspector's key never doubles as a worker key. Not bound by anything
   * the worker can check (it has no plan): it keeps an honest worker from being run on the
   * inspector's key, and names no key that a forged order could make it sign with.
   */
  readonly signers: readonly string[];
  /**
   * The id of the serve that published the order (`SERVE_ID`: a random UUID, one per serve): the
   * worker signs it into its result, so a result is bound to the serve that ordered it.
   */
  readonly serve: string;
  /** The plan's audit id (bound by the item digest). */
  readonly auditId: string;
  /**
   * The log's id, as the plan names it: the verdict is signed under it, and neither the item
   * digest nor the seed binds it, so the worker compares it with its own log's.
   */
  readonly logId: string;
  /** The log's Merkle root (hex). */
  readonly logRoot: string;
  /** The audit seed (hex). */
  readonly seed: string;
  /** Records in the log. */
  readonly population: number;
  /** The plan item. */
  readonly item: PlanItem;
  /**
   * The plan's budget a record (`AuditPlan.maxRecordProducts`), which the worker applies and
   * signs into its result (`ItemResult.maxRecordProducts`): nothing else binds it, and anyone who
   * can publish on the work subject can send an order with another, so the merge compares the
   * result's with the plan's. Absent where the plan sets none (the default).
   */
  readonly maxRecordProducts?: number;
}

/**
 * The work orders of a plan, in selection order.
 *
 * @param plan the plan
 * @param options `planDigest` (SHA-256 of the plan's bytes) and the `serve` id ordering them (a
 *   random UUID in lowercase hex, one per serve)
 * @returns one order per item
 * @throws {RangeError} when `serve` is not a lowercase UUID
 * @example
 * ```ts ignore
 * const serve = crypto.randomUUID();
 * for (const o of workOrders(plan, { planDigest, serve })) await publish(encodeWorkOrder(o));
 * ```
 */
export function workOrders(
  plan: AuditPlan,
  options: { readonly planDigest: string; readonly serve: string },
): WorkOrder[] {
  const { auditId, logId, logRoot, seed, population, maxRecordProducts } = plan;
  const { planDigest, serve } = options;
  if (!SERVE_ID.test(serve)) {
    throw new RangeError(`Cannot order items: serve id '${serve}' is not a lowercase UUID`);
  }
  return plan.items.map((item) => ({
    format: WORK_ORDER_FORMAT,
    plan: planDigest,
    signers: plan.signatures.map((s) => s.keyid),
    serve,
    auditId,
    logId,
    logRoot,
    seed,
    population,
    item,
    ...(maxRecordProducts === undefined ? {} : { maxRecordProducts }),
  }));
}

/**
 * Encodes a work order (canonical JSON, no newline).
 *
 * @param order the order
 * @returns the text
 * @example
 * ```ts ignore
 * const text = encodeWorkOrder(order);
 * ```
 */
export function encodeWorkOrder(order: WorkOrder): string {
  return new TextDecoder().decode(canonicalJson(order));
}

/**
 * Parses a work order strictly and checks its item digest.
 *
 * @param text the order's text
 * @returns the order
 * @throws {InputError} `ORDER_INVALID`
 * @example
 * ```ts ignore
 * const order = parseWorkOrder(msg.string());
 * ```
 */
export function parseWorkOrder(text: string): WorkOrder {
  const { value, bad } = readDocument(text, {
    code: "ORDER_INVALID",
    action: "read a work order",
    maxValues: MAX_ORDER_VALUES,
  });
  const o = exactObject(value, {
    where: "order",
    shape: ORDER,
    optional: ["maxRecordProducts"],
    bad,
  });
  if (o.format !== WORK_ORDER_FORMAT) bad(`format must be '${WORK_ORDER_FORMAT}'`);
  const order: WorkOrder = {
    format: WORK_ORDER_FORMAT,
    plan: o.plan as string,
    signers: _signers(o.signers, bad),
    serve: o.serve as string,
    auditId: o.auditId as string,
    logId: o.logId as string,
    logRoot: o.logRoot as string,
    seed: o.seed as string,
    population: o.population as number,
    item: readPlanItem(o.item, { where: "order.item", bad }),
    ...readBudget(o.maxRecordProducts, { where: "order.maxRecordProducts", bad }),
  };
  requireCanonical(text, { encode: () => encodeWorkOrder(order), bad });
  if (order.item.item !== itemDigest(order, order.item)) bad("the item digest does not recompute");
  return order;
}

/**
 * Checks that a log is the one a work order's audit sampled from (root, size, the item's record,
 * log id), and that the order's item says of its record (kind, claimed fingerprint) what the
 * record says.
 *
 * @param order the order
 * @param log the worker's claim log
 * @throws {InputError} `PLAN_LOG_MISMATCH`
 * @example
 * ```ts ignore
 * checkWorkOrder(order, log);
 * ```
 */
export function checkWorkOrder(order: WorkOrder, log: ClaimLog): void {
  const { item } = order;
  if (
    log.root !== order.logRoot || log.records.length !== order.population ||
    log.digests[item.index] !== item.record
  ) {
    throw new InputError(
      "PLAN_LOG_MISMATCH",
      `Cannot work on record ${item.index}: the worker's log (root ${log.root}) is not the audit's (root ${order.logRoot})`,
    );
  }
  const logId = log.records[0]?.predicate.log.logId ?? "";
  if (logId !== order.logId) {
    throw new InputError(
      "PLAN_LOG_MISMATCH",
      `Cannot work on record ${item.index}: the worker's log id is ${quoteShort(logId)}, the ` +
        `order's ${quoteShort(order.logId)}`,
    );
  }
  const why = planItemMismatch(item, log);
  if (why !== null) {
    throw new InputError("PLAN_LOG_MISMATCH", `Cannot work on record ${item.index}: ${why}`);
  }
}

/**
 * Most JSON values a work order is read with: an order holds 17 at most besides its signers (the
 * object, its ten or eleven fields, the item's five), and `MAX_PLAN_SIGNATURES` signers; a text of
 * more is refused as it is read, before its value is built.
 */
const MAX_ORDER_VALUES = 32 + MAX_PLAN_SIGNATURES;

/** The order's `signers`: at most `MAX_PLAN_SIGNATURES` distinct key ids (hex SHA-256). */
function _signers(v: unknown, bad: (why: string) => never): string[] {
  if (!Array.isArray(v)) bad("'order.signers' must be an array of key ids");
  const list = v as unknown[];
  if (list.length > MAX_PLAN_SIGNATURES) {
    bad(`'order.signers' holds ${list.length} key ids, more than ${MAX_PLAN_SIGNATURES}`);
  }
  list.forEach((id, i) => {
    if (typeof id !== "string" || !HEX64.test(id)) {
      bad(`'order.signers[${i}]' must be a key id (64 lowercase hex digits)`);
    }
  });
  if (new Set(list).size !== list.length) bad("'order.signers' names a key twice");
  return list as string[];
}

const ORDER: Shape = {
  format: "string",
  plan: HEX64,
  signers: "array",
  serve: SERVE_ID,
  auditId: AUDIT_ID_PATTERN,
  logId: LOG_ID_PATTERN,
  logRoot: HEX64,
  seed: HEX64,
  population: "count",
  item: "object",
  maxRecordProducts: "count",
};
