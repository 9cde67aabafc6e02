// env/parse: a line of an env file that is none of KEY=VALUE, export KEY=VALUE, a comment or a blank
// line (a quote never closed, a command key that cannot be split into words, a file that is not UTF-8
// or holds a NUL byte) is not read, so a setting on it would be checked by nothing. The rest of the
// file still parses, and each bad line is its own finding at its line.
// A service's env file that git holds as a symlink (or in a mode that is no file) is not read at all
// (the door follows no link): it is this rule's finding at the file, never a silently smaller fleet.
import { defineCheck } from "./define.js";
import { pathMatcher } from "../load/service-index.js";
// A `*.env` file discovery would read when the services glob matches none.
import { CANDIDATE } from "../load/env-files.js";
import { serviceNameOf } from "../model/build.js";

export const envParse = defineCheck({
  id: "env/parse",
  severity: "error",
  description:
    "A line of an env file that is not KEY=VALUE, export KEY=VALUE, a comment or blank (the rest of the file still parses); " +
    "a service's env file committed as a symlink, which is not read.",
  messages: {
    bad: (d: { message: string }) => `${d.message}`,
    "not-a-file": (d: { path: string; why: string }) =>
      `${d.path} is not read (${d.why}): kvgate reads only regular files, so the service it would define ` +
      `is checked by nothing; commit the env file itself, not a link to it`,
  },
  run(ctx) {
    const isService = pathMatcher(ctx.policy.services);
    const discovering = ctx.after.discovered === true || ctx.after.services.length === 0;
    const skipped = (ctx.unit.notices ?? [])
      .filter((n) => /^(symlink|unsupported file mode)/.test(n.message))
      .filter((n) => isService(n.path) || (discovering && CANDIDATE.test(n.path)))
      .map((n) => ({
        message: "not-a-file" as const,
        data: { path: n.path, why: n.message.replace(/: skipped.*$/, "") },
        file: n.path,
        line: 1,
        service: serviceNameOf(n.path),
      }));
    const parsed = ctx.after.services.flatMap((s) =>
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
    return [...skipped, ...parsed];
  },
});
