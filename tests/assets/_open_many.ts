/**
 * Opens `count` distinct blobs of the folder `dir` through one store and holds them open, then
 * prints what stopped it: run under a low `ulimit -n` by blob_store_test.ts.
 */
import { openBlobStore } from "../../src/assets/mod.ts";
import { HostResourceError, InputError } from "../../src/errors.ts";

const [dir, count] = Deno.args;
const store = openBlobStore(dir!);
const names = [...Deno.readDirSync(dir!)].map((e) => e.name).sort();
const held = [];
try {
  for (const name of names.slice(0, Number(count))) held.push(await store.open!(name));
  console.log(`opened ${held.length}`);
} catch (e) {
  if (e instanceof HostResourceError) console.log(`host ${e.resource}: ${e.message}`);
  else if (e instanceof InputError) console.log(`input ${e.code}: ${e.message}`);
  else throw e;
}
