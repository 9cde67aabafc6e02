// radiance/funding: what the change does to the endpoint's KV funding (docs/radiance.md), as a
// notice with the numbers, so a resize says its effect before it boots.
import { defineCheck, type Report } from "./define.js";
import { ledgerSizedServices, ledgerEntry, lineOf } from "../radiance/settings.js";
import { fundingSides } from "../radiance/sides.js";
import { FUNDING_KEYS, type Funding } from "../radiance/funding.js";
import { formatInt } from "../units/bytes.js";

type Side = {
  tokens: number;
  demand_tokens: number;
  funded: number;
};
type Data = Side & {
  budget_card: number;
  before: Side | null;
  cards: { index: number; tokens: number; kv_bytes: number }[];
};

const pct = (r: number) => `${(r * 100).toFixed(1)} %`;
const side = (f: Funding): Side => ({ tokens: f.tokens, demand_tokens: f.demand_tokens, funded: f.funded });
const moved = (a: Side, b: Side) => a.tokens !== b.tokens || a.demand_tokens !== b.demand_tokens;

const messages = {
  funding: (d: Data) => {
    const now = `funds ${formatInt(d.tokens)} of ${formatInt(d.demand_tokens)} tokens of demand (${pct(d.funded)}); card ${d.budget_card} is the budget`;
    if (!d.before) return now;
    return `${now}; was ${formatInt(d.before.tokens)} of ${formatInt(d.before.demand_tokens)} (${pct(d.before.funded)})`;
  },
  inputs: (d: { missing: string[] }) => `the funding cannot be computed: set ${d.missing.join(", ")} (the budget resolver reads all four)`,
};
type R = Report<typeof messages>;

export const radianceFunding = defineCheck({
  id: "radiance/funding",
  severity: "notice",
  description: "The KV funding of a radiance endpoint (tokens, demand, funded share), before → after when the change moves it.",
  messages,
  run(ctx) {
    return ledgerSizedServices(ctx.after, ctx.pack).flatMap((s): R[] => {
      const entry = ledgerEntry(ctx.after, s.name);
      if (!entry?.ok) return []; // radiance/ledger-facts reports a missing or bad facts file
      const b = ctx.before?.services.find((x) => x.name === s.name && x.engine === s.engine) ?? null;
      const f = fundingSides({ service: s, ledger: entry }, b ? { service: b, ledger: ledgerEntry(ctx.before, b.name) } : null);
      if (!f.after) {
        if (b && JSON.stringify(settingValues(b)) === JSON.stringify(settingValues(s))) return [];
        return [{ message: "inputs" as const, service: s.name, file: s.file, line: null, data: { missing: f.missing } }];
      }
      const before = f.before ? side(f.before) : null;
      // Unchanged endpoints stay quiet; a new one (or --all) shows where it stands.
      if (b && before && !moved(before, side(f.after))) return [];
      const changedKey = (Object.keys(FUNDING_KEYS) as (keyof typeof FUNDING_KEYS)[]).find(
        (k) => b && b.settings[k]?.value !== s.settings[k]?.value,
      );
      const data: Data = {
        ...side(f.after),
        budget_card: f.after.budget_card,
        before,
        cards: f.after.cards.map((c) => ({ index: c.index, tokens: c.tokens, kv_bytes: c.kv_bytes })),
      };
      return [{ message: "funding" as const, service: s.name, file: s.file, line: changedKey ? lineOf(s, changedKey) : null, data }];
    });
  },
});

function settingValues(s: { settings: Record<string, { value: unknown }> }): Record<string, unknown> {
  return Object.fromEntries(Object.entries(s.settings).map(([k, v]) => [k, v.value]));
}
