// How loud a rule is by default: an error fails the gate, a warning fails it at --fail-on warning,
// a notice never does.
export type Severity = "error" | "warning" | "notice";
