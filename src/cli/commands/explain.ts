// kvgate explain [SERVICE]: every service with its parsed settings and where each came from, and the
// sizing tables that later parts of the gate add (per service and per card).
import { parse, oneOf } from "../args.js";
import { GateError } from "../../errors.js";
import { loadPack, repoDirOf } from "../context.js";
import { openSource } from "../source.js";
import { loadFleet, policyOf } from "../../engine/fleet.js";
import { fleetReaders } from "../../engine/readers.js";
import { explainJson, explainText } from "../../explain/index.js";
import { useColor } from "../../report/color.js";

const OPTIONS = { repo: { type: "string" }, format: { type: "string" }, config: { type: "string" } } as const;

export async function explainCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS, 1);
  const format = oneOf("format", values.format, ["text", "json"] as const, "text");
  const pack = loadPack();
  const source = await openSource(repoDirOf(values.repo), true);
  const [unit] = await source.units({ mode: "all" });
  if (!unit) throw new GateError("nothing to explain: the folder is empty");
  const policy = await policyOf(unit.after, pack);
  const fleet = await loadFleet(unit.after, policy, pack, fleetReaders());
  // In a repository, the committed state is the "before" of what the working tree changes.
  const head = source.repo && (await source.repo.headSha()) ? await source.repo.snapshot("HEAD") : null;
  const before = head ? await loadFleet(head, policy, pack, fleetReaders()) : null;
  const only = positionals[0];
  if (only !== undefined && !fleet.services.some((s) => s.name === only)) {
    throw new GateError(`no service "${only}"`, { hint: `name one of: ${fleet.services.map((s) => s.name).join(", ") || "(none found under " + policy.services + ")"}` });
  }
  const input = { fleet, before, policy, pack, only: only ?? null };
  process.stdout.write(format === "json" ? JSON.stringify(explainJson(input), null, 2) + "\n" : explainText(input, { color: useColor(process.stdout, process.env) }));
  return 0;
}
