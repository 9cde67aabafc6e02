// env/duplicate-key: a key set twice in one env file runs with the last value, as a shell sourcing
// the file would; the first line is dead text that a reader (or a reviewer of a diff that touches it)
// takes for the setting.
import { defineCheck } from "./define.js";

export const envDuplicateKey = defineCheck({
  id: "env/duplicate-key",
  severity: "warning",
  description: "A key set twice in one env file: the last one wins, and the first is dead text that misleads the next reader.",
  messages: {
    duplicate: (d: { message: string }) => d.message,
  },
  run(ctx) {
    return ctx.after.services.flatMap((s) =>
      s.env.problems
        .filter((p) => p.kind === "duplicate-key")
        .map((p) => ({
          message: "duplicate" as const,
          data: { message: p.message, key: p.key },
          file: s.file,
          line: p.line,
          service: s.name,
          key: p.key ?? "",
        })),
    );
  },
});
