// env/conflict: a setting given both as an env key and as a flag (MAX_MODEL_LEN=32768 beside
// --max-model-len 40960) runs with the flag's value, so the env key is text that says one number while
// the seat runs another. kvgate sizes what runs (the flag); the warning asks to keep one spelling.
import { defineCheck } from "./define.js";

export const envConflict = defineCheck({
  id: "env/conflict",
  severity: "warning",
  description: "A setting given both as an env key and as a flag with different values: the flag wins, the env key is ignored.",
  messages: {
    conflict: (d: { service: string; flag: string; flagRaw: string; env: string; envRaw: string; envLine: number }) =>
      `${d.service}: ${d.flag} ${d.flagRaw} wins over ${d.env}=${d.envRaw} (line ${d.envLine}); remove one of them so the file says one number`,
  },
  run(ctx) {
    return ctx.after.services.flatMap((s) =>
      s.conflicts.map((c) => ({
        message: "conflict" as const,
        data: {
          service: s.name,
          setting: c.name,
          flag: c.kept.name,
          flagRaw: c.keptRaw,
          env: c.dropped.name,
          envRaw: c.droppedRaw,
          envLine: c.dropped.line,
        },
        file: c.kept.file,
        line: c.kept.line,
        service: s.name,
        key: c.name,
      })),
    );
  },
});
