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
