// compose-go casts a string at some paths to the type the schema and its Go struct want, after
// interpolation (loader/interpolate.go interpolateTypeCastMapping, applied by
// interpolation.go recursiveInterpolate): `replicas: ${N}` with N=2 is the integer 2, and
// `replicas: "two"` is refused ("failed to cast to expected type").

type Cast = "int" | "float" | "bool";

/** Paths as compose-go writes them: `*` matches any key, `[]` any list item. */
const CASTS: readonly [string, Cast][] = [
  ["services.*.cpu_count", "int"],
  ["services.*.cpu_percent", "float"],
  ["services.*.cpu_period", "int"],
  ["services.*.cpu_quota", "int"],
  ["services.*.cpu_rt_period", "int"],
  ["services.*.cpu_rt_runtime", "int"],
  ["services.*.cpus", "float"],
  ["services.*.cpu_shares", "int"],
  ["services.*.init", "bool"],
  ["services.*.depends_on.*.required", "bool"],
  ["services.*.depends_on.*.restart", "bool"],
  ["services.*.deploy.replicas", "int"],
  ["services.*.deploy.update_config.parallelism", "int"],
  ["services.*.deploy.update_config.max_failure_ratio", "float"],
  ["services.*.deploy.rollback_config.parallelism", "int"],
  ["services.*.deploy.rollback_config.max_failure_ratio", "float"],
  ["services.*.deploy.restart_policy.max_attempts", "int"],
  ["services.*.deploy.placement.max_replicas_per_node", "int"],
  ["services.*.healthcheck.retries", "int"],
  ["services.*.healthcheck.disable", "bool"],
  ["services.*.oom_kill_disable", "bool"],
  ["services.*.oom_score_adj", "int"],
  ["services.*.pids_limit", "int"],
  ["services.*.ports.[].target", "int"],
  ["services.*.privileged", "bool"],
  ["services.*.read_only", "bool"],
  ["services.*.scale", "int"],
  ["services.*.stdin_open", "bool"],
  ["services.*.tty", "bool"],
  ["services.*.ulimits.*", "int"],
  ["services.*.ulimits.*.hard", "int"],
  ["services.*.ulimits.*.soft", "int"],
  ["services.*.volumes.[].read_only", "bool"],
  ["services.*.volumes.[].volume.nocopy", "bool"],
  ["networks.*.external", "bool"],
  ["networks.*.internal", "bool"],
  ["networks.*.attachable", "bool"],
  ["networks.*.enable_ipv4", "bool"],
  ["networks.*.enable_ipv6", "bool"],
  ["volumes.*.external", "bool"],
  ["secrets.*.external", "bool"],
  ["configs.*.external", "bool"],
];

const BY_DEPTH = new Map<number, [string[], Cast][]>();
for (const [p, c] of CASTS) {
  const parts = p.split(".");
  BY_DEPTH.set(parts.length, [...(BY_DEPTH.get(parts.length) ?? []), [parts, c]]);
}

/** The cast compose-go applies to a string at `path` (keys; list items as "[]"), if any. */
export function castAt(path: readonly string[]): Cast | null {
  for (const [parts, cast] of BY_DEPTH.get(path.length) ?? []) {
    if (parts.every((p, i) => p === "*" || p === path[i])) return cast;
  }
  return null;
}

/** The cast value, as Go's strconv would read it; an Error with Go's words when it cannot. */
export function cast(value: string, to: Cast): number | boolean | Error {
  switch (to) {
    case "int":
      // strconv.Atoi / ParseInt(s, 10, 64): an optional sign and decimal digits.
      return /^[-+]?[0-9]+$/.test(value) ? Number(value) : new Error(`strconv.Atoi: parsing ${JSON.stringify(value)}: invalid syntax`);
    case "float": {
      const n = Number(value);
      return value.trim() !== "" && Number.isFinite(n)
        ? n
        : new Error(`strconv.ParseFloat: parsing ${JSON.stringify(value)}: invalid syntax`);
    }
    case "bool":
      // interpolate.go toBoolean: true/false, and YAML 1.1's y/yes/on, n/no/off (with a warning).
      switch (value.toLowerCase()) {
        case "true":
        case "y":
        case "yes":
        case "on":
          return true;
        case "false":
        case "n":
        case "no":
        case "off":
          return false;
        default:
          return new Error(`invalid boolean: ${value}`);
      }
    default:
      to satisfies never;
      return new Error("unknown cast");
  }
}
