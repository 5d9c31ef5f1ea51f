/** The published JSON Schemas (schemas/*.json), compiled by Ajv's draft 2020-12 build in strict mode. */
import { Ajv2020 } from "ajv/dist/2020.js";

/** The schema files, by name (`schemas/<name>.json`). */
export const SCHEMA_NAMES = [
  "announcement",
  "audit-plan",
  "claim-record",
  "dsse-envelope",
  "item-result",
  "serving-history",
  "signed-item-result",
  "trust-root",
  "verdict-predicate",
] as const;

/** One schema's name. */
export type SchemaName = (typeof SCHEMA_NAMES)[number];

/** A compiled schema: true when the value is valid, the errors of the last call otherwise. */
export type Validator = ((value: unknown) => boolean) & {
  errors?: readonly { instancePath: string; message?: string }[] | null;
};

const DIR = new URL("../../schemas/", import.meta.url);

/** Each schema as parsed JSON. */
export const SCHEMAS: Readonly<Record<SchemaName, Record<string, unknown>>> = Object.fromEntries(
  await Promise.all(
    SCHEMA_NAMES.map(async (name) => [
      name,
      JSON.parse(await Deno.readTextFile(new URL(`${name}.json`, DIR))),
    ]),
  ),
);

const ajv = new Ajv2020({ strict: true });
for (const name of SCHEMA_NAMES) ajv.addSchema(SCHEMAS[name]);

/**
 * The compiled validator of a schema (compiled once).
 *
 * @param name schema name
 */
export function validator(name: SchemaName): Validator {
  const v = ajv.getSchema(`https://bitaudit.dev/schemas/${name}.json`);
  if (v === undefined) throw new Error(`schema ${name} is not loaded`);
  return v as Validator;
}

/**
 * Says why a value is invalid against a schema, or null when it is valid.
 *
 * @param name schema name
 * @param value the value
 */
export function schemaErrors(name: SchemaName, value: unknown): string | null {
  const v = validator(name);
  if (v(value)) return null;
  return JSON.stringify(v.errors?.slice(0, 3));
}
