// env/parse: a line of an env file that is none of KEY=VALUE, export KEY=VALUE, a comment or a blank
// line (a quote never closed, a command key that cannot be split into words, a file that is not UTF-8
// or holds a NUL byte) is not read, so a setting on it would be checked by nothing. The rest of the
// file still parses, and each bad line is its own finding at its line.
import { defineCheck } from "./define.js";

export const envParse = defineCheck({
  id: "env/parse",
  severity: "error",
  description: "A line of an env file that is not KEY=VALUE, export KEY=VALUE, a comment or blank; the rest of the file still parses.",
  messages: {
    bad: (d: { message: string }) => `${d.message}`,
  },
  run(ctx) {
    return ctx.after.services.flatMap((s) =>
      s.env.problems
        .filter((p) => p.kind === "parse")
        .map((p) => ({
          message: "bad" as const,
          data: { message: p.message },
          file: s.file,
          line: p.line,
          service: s.name,
          key: `${p.line}:${p.message}`,
        })),
    );
  },
});
