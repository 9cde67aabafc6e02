// kvgate plan [--host H]: the exact layout of a host's vLLM seats and tenants over its cards that
// maximises the worst card's spare, and the moves from today's layout. With --raise-contexts: the layout
// that raises the most seats to their model's native maximum context (src/plan/raise.ts).
import { parse, oneOf } from "../args.js";
import { GateError } from "../../errors.js";
import { workingView } from "../view.js";
import { planForHost, planHosts } from "../../plan/host.js";
import { renderPlan, renderRaise } from "../../report/plan.js";
import { raiseContextsForHost } from "../../plan/raise.js";
import { sizesKvPerSeat } from "../../model/engine.js";
import { useColor } from "../../report/color.js";
import { createMasker } from "../../secrets/mask.js";

const OPTIONS = {
  host: { type: "string" },
  repo: { type: "string" },
  format: { type: "string" },
  config: { type: "string" },
  "raise-contexts": { type: "boolean" },
} as const;

export async function planCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, OPTIONS, 0);
  const format = oneOf("format", values.format, ["text", "json"] as const, "text");
  const { running: fleet, written, policy, pack } = await workingView(values);
  const known = planHosts(fleet);
  if (known.length === 0)
    throw new GateError("no hosts to plan: kvgate.yaml has no fleet.hosts", { hint: "list the hosts and their cards under fleet.hosts" });
  if (values.host !== undefined && !known.includes(values.host))
    throw new GateError(`unknown host "${values.host}"`, { hint: `name one of: ${known.join(", ")}` });
  // Without --host, the hosts that hold something the plan can move.
  const movable = known.filter(
    (h) => fleet.services.some((s) => sizesKvPerSeat(pack, s) && s.host === h) || fleet.tenants.some((t) => t.host === h),
  );
  const hosts = values.host !== undefined ? [values.host] : movable;
  // Seat, host and file names are a pull request's text: a token naming an env file, an escape sequence
  // in a host name, are shown masked and escaped, as explain and check show them.
  const masker = createMasker(pack.detectors(), policy);
  const show = (text: string) => process.stdout.write(masker.text(text));
  if (values["raise-contexts"] === true) {
    const raises = hosts.map((h) => raiseContextsForHost(fleet, policy, pack, h));
    if (format === "json") show(JSON.stringify(raises.length === 1 ? raises[0] : raises, null, 2) + "\n");
    else show(raises.map((r) => renderRaise(r, fleet, { color: useColor(process.stdout, process.env) })).join("\n"));
    return 0;
  }
  const results = hosts.map((h) => planForHost(fleet, policy, pack, h));
  if (format === "json") {
    show(JSON.stringify(results.length === 1 ? results[0] : results, null, 2) + "\n");
  } else {
    const color = useColor(process.stdout, process.env);
    show(results.map((r) => renderPlan(r, fleet, { color, written })).join("\n"));
  }
  return 0;
}
