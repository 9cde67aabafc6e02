// The SQL of `usage --litellm-db`: the same figures as the file path (./aggregate.ts), computed where
// LiteLLM keeps its spend logs, so that a month of a busy gateway never crosses the network row by row.
// Table and columns as LiteLLM's schema.prisma creates them (model LiteLLM_SpendLogs; Prisma quotes the
// mixed-case names; DateTime is timestamp(3) without time zone, in UTC).
//
// - percentiles: percentile_disc, the first value whose cumulative share reaches q, which is the
//   nearest rank ⌈q·n⌉ of contract section 16 (PostgreSQL computes ceil(q × n) in double precision;
//   for q = 0.5 and 0.99 that equals the exact ⌈q·n⌉ for every n up to 2·10^7, checked in the tests).
// - in-flight peak: each request is a start event (+tokens) and an end event (−tokens); a running sum
//   over the events ordered by time, ends before starts at the same instant ([start, end) intervals),
//   and its maximum, per service. The runaways' events are kept in the order but count 0 in the second sum.
// - the rows are classified once (a MATERIALIZED CTE of narrow columns), then aggregated.

/** The parameters of AGGREGATE_SQL ($1..$7; RUNAWAYS_SQL adds $8 and $9). */
export interface SqlParams {
  /** usage.models as parallel arrays: listed name → service. */
  names: string[];
  services: string[];
  /** Per-service runaway thresholds (the seat's output cap where lower than usage.runaway_tokens). */
  thresholdServices: string[];
  thresholds: number[];
  defaultThreshold: number;
  /** `YYYY-MM-DD HH:MM:SS.mmm` (UTC) or null. */
  since: string | null;
  until: string | null;
}

export function sqlValues(p: SqlParams): unknown[] {
  return [p.names, p.services, p.thresholdServices, p.thresholds, p.defaultThreshold, p.since, p.until];
}

const TABLE = `"LiteLLM_SpendLogs"`;

const COMMON = `
  names(name, service) AS (SELECT * FROM unnest($1::text[], $2::text[])),
  limits(service, threshold) AS (SELECT * FROM unnest($3::text[], $4::int[]))`;

/** The row's service: a usage.models listing of its model_group, else of its model, else the name itself. */
const SERVICE = `COALESCE(g.service, m.service, NULLIF(s.model_group, ''), NULLIF(s.model, ''))`;
const JOIN_NAMES = `LEFT JOIN names g ON g.name = NULLIF(s.model_group, '') LEFT JOIN names m ON m.name = NULLIF(s.model, '')`;
const BAD = `(x.service IS NULL OR x.p < 0 OR x.c < 0 OR x.st IS NULL OR x.et IS NULL OR x.et < x.st)`;
const OUTSIDE = `(($6::timestamp IS NOT NULL AND x.st < $6::timestamp) OR ($7::timestamp IS NOT NULL AND x.st >= $7::timestamp))`;
const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.US'`;

/** Counts, percentiles, maxima and in-flight peaks per service: one row, one JSON value. */
export const AGGREGATE_SQL = `
WITH ${COMMON},
v AS MATERIALIZED (
  SELECT x.service, x.p, x.c, x.st, x.et,
    CASE WHEN ${BAD} THEN 2 WHEN ${OUTSIDE} THEN 1 ELSE 0 END AS status,
    x.c >= COALESCE(l.threshold, $5::int) AS runaway
  FROM (
    SELECT ${SERVICE} AS service, s.prompt_tokens AS p, s.completion_tokens AS c, s."startTime" AS st, s."endTime" AS et
    FROM ${TABLE} s ${JOIN_NAMES}
  ) x LEFT JOIN limits l ON l.service = x.service
),
ok AS NOT MATERIALIZED (SELECT * FROM v WHERE status = 0),
stats AS (
  SELECT service, count(*) AS calls,
    percentile_disc(ARRAY[0.5, 0.99]::float8[]) WITHIN GROUP (ORDER BY p) AS pq, max(p) AS pmax,
    percentile_disc(ARRAY[0.5, 0.99]::float8[]) WITHIN GROUP (ORDER BY c) AS cq, max(c) AS cmax,
    max(c) FILTER (WHERE NOT runaway) AS c_sans,
    count(*) FILTER (WHERE runaway) AS runaways,
    to_char(min(st), ${ISO}) AS first_st, to_char(max(st), ${ISO}) AS last_st
  FROM ok GROUP BY service
),
ev AS (
  SELECT service, st AS t, (p + c)::bigint AS d, runaway FROM ok WHERE et > st
  UNION ALL
  SELECT service, et AS t, -(p + c)::bigint AS d, runaway FROM ok WHERE et > st
),
peaks AS (
  SELECT service, max(run_all) AS peak_all, max(run_sans) AS peak_sans FROM (
    SELECT service,
      sum(d) OVER w AS run_all,
      sum(CASE WHEN runaway THEN 0 ELSE d END) OVER w AS run_sans
    FROM ev WINDOW w AS (PARTITION BY service ORDER BY t, d ROWS UNBOUNDED PRECEDING)
  ) running GROUP BY service
)
SELECT json_build_object(
  'read', (SELECT count(*) FROM v),
  'skipped', (SELECT count(*) FROM v WHERE status = 2),
  'outside', (SELECT count(*) FROM v WHERE status = 1),
  'services', (SELECT coalesce(json_agg(json_build_object(
      'name', s.service, 'calls', s.calls,
      'p50p', s.pq[1], 'p99p', s.pq[2], 'maxp', s.pmax,
      'p50c', s.cq[1], 'p99c', s.cq[2], 'maxc', s.cmax,
      'c_sans', s.c_sans, 'runaways', s.runaways,
      'peak_all', coalesce(k.peak_all, 0), 'peak_sans', coalesce(k.peak_sans, 0),
      'first', s.first_st, 'last', s.last_st) ORDER BY s.service COLLATE "C"), '[]'::json)
    FROM stats s LEFT JOIN peaks k ON k.service = s.service)
) AS result`;

/** The runaways: the largest $8 per service, and a tally per key (count, largest, alias). */
export const RUNAWAYS_SQL = `
WITH ${COMMON},
r AS (
  SELECT x.*, row_number() OVER (PARTITION BY x.service ORDER BY x.c DESC, x.st, x.request_id COLLATE "C") AS rn
  FROM (
    SELECT ${SERVICE} AS service, s.request_id, s.api_key,
      NULLIF(s.metadata->>'user_api_key_alias', '') AS alias,
      s.prompt_tokens AS p, s.completion_tokens AS c, s."startTime" AS st, s."endTime" AS et
    FROM ${TABLE} s ${JOIN_NAMES}
    WHERE s.completion_tokens >= $9::int
  ) x LEFT JOIN limits l ON l.service = x.service
  WHERE NOT ${BAD} AND NOT ${OUTSIDE} AND x.c >= COALESCE(l.threshold, $5::int)
)
SELECT json_build_object(
  'list', (SELECT coalesce(json_agg(json_build_object(
      'service', service, 'request_id', request_id, 'api_key', api_key, 'alias', alias,
      'p', p, 'c', c, 'st', to_char(st, ${ISO})) ORDER BY service COLLATE "C", rn), '[]'::json)
    FROM r WHERE rn <= $8::int),
  'keys', (SELECT coalesce(json_agg(json_build_object(
      'service', service, 'api_key', api_key, 'count', n, 'max', cmax, 'alias', alias)), '[]'::json)
    FROM (SELECT service, api_key, count(*) AS n, max(c) AS cmax, max(alias COLLATE "C") AS alias FROM r GROUP BY service, api_key) k)
) AS result`;

/** The first $3 skipped rows, with why (the file path's reasons, by request id instead of line). */
export const PROBLEMS_SQL = `
WITH names(name, service) AS (SELECT * FROM unnest($1::text[], $2::text[])),
x AS (
  SELECT ${SERVICE} AS service, s.request_id, s.prompt_tokens AS p, s.completion_tokens AS c, s."startTime" AS st, s."endTime" AS et
  FROM ${TABLE} s ${JOIN_NAMES}
)
SELECT request_id,
  CASE WHEN x.service IS NULL THEN 'neither model_group nor model names the model'
       WHEN x.p < 0 THEN 'prompt_tokens: expected a whole number of tokens ≥ 0, got ' || x.p
       WHEN x.c < 0 THEN 'completion_tokens: expected a whole number of tokens ≥ 0, got ' || x.c
       WHEN x.st IS NULL THEN 'startTime is missing'
       WHEN x.et IS NULL THEN 'endTime is missing'
       ELSE 'endTime ' || x.et || ' is before startTime ' || x.st END AS reason
FROM x WHERE ${BAD}
ORDER BY x.st NULLS FIRST, x.request_id COLLATE "C"
LIMIT $3::int`;

/** The columns `usage` reads; a table without them is not LiteLLM's (or is from a version too old). */
export const REQUIRED_DB_COLUMNS = [
  "request_id",
  "api_key",
  "model",
  "model_group",
  "prompt_tokens",
  "completion_tokens",
  "startTime",
  "endTime",
  "metadata",
] as const;

export const COLUMNS_SQL = `
SELECT column_name FROM information_schema.columns
WHERE table_name = 'LiteLLM_SpendLogs' AND table_schema = ANY (current_schemas(false))`;
