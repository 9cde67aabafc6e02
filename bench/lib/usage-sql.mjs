// Prints the SQL `kvgate usage --litellm-db` sends, with its parameters written in, for psql: the
// floor the database path is measured against (the same aggregation, no client).
//   node bench/lib/usage-sql.mjs <sql.mjs bundle of src/usage/sql.ts> <thresholds JSON>
import { pathToFileURL } from "node:url";

const [bundle, thresholdsJson] = process.argv.slice(2);
const { AGGREGATE_SQL, RUNAWAYS_SQL } = await import(pathToFileURL(bundle).href);
const thresholds = JSON.parse(thresholdsJson);
const lit = (s) => `'${String(s).replace(/'/g, "''")}'`;
const arr = (xs, type) => `ARRAY[${xs.map((x) => (type === "text" ? lit(x) : String(x))).join(",")}]::${type}[]`;
const services = Object.keys(thresholds);
// $1..$7 as kvgate binds them with no usage.models and no --since/--until; $8 the runaway list, $9 the
// smallest threshold.
const params = [
  arr([], "text"),
  arr([], "text"),
  arr(services, "text"),
  arr(
    services.map((s) => thresholds[s]),
    "int",
  ),
  "100000",
  "NULL::timestamp",
  "NULL::timestamp",
  "100",
  String(Math.min(100000, ...Object.values(thresholds))),
];
const bind = (sql) => sql.replace(/\$(\d+)/g, (_, n) => params[Number(n) - 1]);
console.log("\\timing on");
console.log("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;");
console.log(bind(AGGREGATE_SQL) + ";");
console.log(bind(RUNAWAYS_SQL) + ";");
console.log("COMMIT;");
