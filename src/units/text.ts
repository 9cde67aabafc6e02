// A value parsed from YAML or JSON, shown as text: scalars as JavaScript writes them, anything else as
// JSON (never "[object Object]").
export function valueText(v: unknown): string {
  switch (typeof v) {
    case "string":
      return v;
    case "number":
    case "boolean":
    case "bigint":
      return v.toString();
    case "undefined":
      return "undefined";
    case "symbol":
      return v.description ?? "symbol";
    case "function":
      return "function";
    default:
      return v === null ? "null" : (JSON.stringify(v) ?? "");
  }
}
