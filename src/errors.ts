// An error that means "the gate could not run": the CLI prints it with its hint and exits 2.
// Anything else thrown is an internal error, and also exits 2: the gate fails closed.
export class GateError extends Error {
  readonly hint: string | undefined;
  readonly details: string[];
  constructor(message: string, opts: { hint?: string; details?: string[]; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "GateError";
    this.hint = opts.hint;
    this.details = opts.details ?? [];
  }
}

/** Usage errors print the usage line as well. */
export class UsageError extends GateError {
  /** The usage line of the command the error is about; the CLI prints check's when none is given. */
  readonly usage: string | undefined;
  constructor(message: string, usage?: string) {
    super(message);
    this.name = "UsageError";
    this.usage = usage;
  }
}
