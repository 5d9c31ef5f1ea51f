/**
 * What an audit id may be: 1 to 128 printable ASCII characters from the set a claim log id uses
 * (`A-Z a-z 0-9 . _ : -`). The id is signed, shown in reports and on the checker page, and read by
 * rules such as the announced form's prefix (`announced-...`): a lookalike character (U+2011 for
 * the hyphen) or a control character would make one id read as another.
 *
 * @module
 */
import { LOG_ID_PATTERN } from "../claims/mod.ts";

/**
 * An audit id: 1-128 of `A-Z a-z 0-9 . _ : -`, the claim log id's own pattern (`LOG_ID_PATTERN`),
 * so that the two sets cannot drift apart.
 */
export const AUDIT_ID_PATTERN: RegExp = LOG_ID_PATTERN;

/** What {@link AUDIT_ID_PATTERN} allows, in words for messages. */
export const AUDIT_ID_RULE = "1-128 of A-Z a-z 0-9 . _ : -";
