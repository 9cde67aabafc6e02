// The working fleet for explain, plan, usage and observe, from the engine's view loader; the findings
// the view raised (fleet/no-services, compose/parse) are printed on stderr, one a line, before the view.
import { GateError } from "../errors.js";
import { loadPack, policyFromFile, repoDirOf } from "./context.js";
import { loadView, type FleetView } from "../engine/api.js";

type ViewOptions = { repo?: string | undefined; config?: string | undefined };

export async function workingView(opts: ViewOptions): Promise<FleetView> {
  const view = await workingViewIfAny(opts);
  if (!view) throw new GateError("nothing to read: the folder is empty");
  return view;
}

/** The same, or null for an empty folder: `usage` and `observe` read logs and metrics first. */
export async function workingViewIfAny(opts: ViewOptions): Promise<FleetView | null> {
  const pack = loadPack();
  const view = await loadView({ dir: await repoDirOf(opts.repo), policy: policyFromFile(opts.config, pack), pack });
  if (view) process.stderr.write(viewNotes(view));
  return view;
}

/**
 * The view's findings as lines, `severity rule: file:line: message` (already masked by the pipeline):
 * the first of each rule and file, with how many more `check --all` lists, so a broken file does not
 * bury the view under its every YAML error.
 */
function viewNotes(view: Pick<FleetView, "findings">): string {
  const groups = new Map<string, { first: FleetView["findings"][number]; more: number }>();
  for (const f of view.findings) {
    const key = `${f.rule}\u0000${f.file ?? ""}`;
    const g = groups.get(key);
    if (g) g.more++;
    else groups.set(key, { first: f, more: 0 });
  }
  const out = [...groups.values()].map(({ first: f, more }) => {
    const where = f.file === null ? "" : `${f.file}:${f.line ?? 1}: `;
    return `${f.severity} ${f.rule}: ${where}${f.message}${more > 0 ? ` (and ${more} more: kvgate check --all lists them)` : ""}`;
  });
  // A compose file kvgate cannot load deploys nothing: its seats are shown as their env files have them.
  const broken = [
    ...new Set(
      view.findings
        .filter((f) => f.rule === "compose/parse")
        .map((f) => (typeof f.data.compose === "string" ? f.data.compose : (f.file ?? ""))),
    ),
  ];
  for (const file of broken) out.push(`note: explain and plan show what the env files say instead of what ${file} deploys`);
  return out.length === 0 ? "" : out.join("\n") + "\n";
}
