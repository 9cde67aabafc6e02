// radiance/ledger-facts: the facts file the funding formula reads must be whole and well-formed;
// a funding number from a half-copied ledger would be worse than none.
import { defineCheck, type Report } from "./define.js";
import { ledgerSizedServices, ledgerEntry } from "../radiance/settings.js";
import { ledgerPathOf } from "../parse/ledger-facts.js";

const messages = {
  problem: (d: { message: string }) => `ledger facts: ${d.message}`,
  cards: (d: { cards: number; expected: number; from: string }) =>
    `the ledger facts list ${d.cards} card${d.cards === 1 ? "" : "s"} but the endpoint runs ` +
    `on ${d.expected} (${d.from}): list every card's facts, the smallest card is the budget`,
  missing: (d: { file: string }) =>
    `no ledger facts file ${d.file}: funding is not checked; write it from the last boot ledger (README#rule-radiance-ledger-facts)`,
};
type R = Report<typeof messages>;

export const radianceLedgerFacts = defineCheck({
  id: "radiance/ledger-facts",
  severity: "error",
  description: "A radiance endpoint's ledger facts file (scripts/<service>.ledger.yaml) is malformed, or missing (notice).",
  messages,
  run(ctx) {
    return ledgerSizedServices(ctx.after, ctx.pack).flatMap((s): R[] => {
      const entry = ledgerEntry(ctx.after, s.name);
      if (!entry) {
        // Only when the endpoint is part of the change (or the whole tree is checked), so an
        // untracked ledger does not add a notice to every unrelated commit.
        // Deleting the ledger file counts as touching the endpoint.
        const file = ledgerPathOf(ctx.policy.ledgers, s.name);
        const touched = ctx.before === null || ctx.unit.files.some((f) => f.path === s.file || f.path === file);
        if (!touched) return [];
        return [{ message: "missing" as const, severity: "notice" as const, service: s.name, file: s.file, line: null, data: { file } }];
      }
      if (!entry.ok) {
        return entry.problems.map((p) => ({
          message: "problem" as const,
          service: s.name,
          file: entry.file,
          line: p.line,
          key: p.path,
          data: { message: p.message, path: p.path },
        }));
      }
      const expected = s.gpus.length > 0 ? s.gpus.length : s.tp;
      const from = s.gpus.length > 0 ? `GPU=${s.gpus.join(",")}` : `TP=${s.tp}`;
      if (entry.facts.cards.length === expected) return [];
      return [
        {
          message: "cards" as const,
          service: s.name,
          file: entry.file,
          line: 1,
          data: { cards: entry.facts.cards.length, expected, from },
        },
      ];
    });
  },
});
