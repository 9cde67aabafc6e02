// `kvgate init` in a user's repository: the hooks (live when it exits, and proved so on a canary
// commit), a starter kvgate.yaml and the workflow. It never overwrites a file the user has (hooks get
// kvgate's line once, or are chained), so a second run changes nothing and says so.
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { GateError } from "../errors.js";
import { writeInRepository } from "../git/door.js";
import { cardLookupOf, CONFIG_NAMES, parseConfig } from "../config/load.js";
import { packRoot } from "./package-root.js";
import { proveHooks } from "./canary.js";
import { gitOut, husky, plainGit, preCommitFramework, type Context, type ModeResult } from "./modes.js";
import { huskyState } from "./husky.js";
import { PRE_COMMIT_CONFIG } from "./precommit.js";
import { starterConfig, type Inventory } from "./starter.js";
import { cardNamesIn, inventoriesFrom } from "./card-names.js";
import { observedInventories } from "./observed-cards.js";
import { discover, hostsFor } from "./discover.js";
import { hostCards } from "./inventory.js";
import { loadPack } from "../rules/load.js";
import { workflowYaml } from "./workflow.js";

export interface InitReport {
  root: string;
  mode: string;
  /** One line per thing done or left alone, for the user. */
  lines: string[];
  changed: number;
  /** The hooks ran on the canary and did what they must. */
  live: boolean;
  /** When not live: why, and what to type. */
  notLive: { reason: string; fix: string[]; output?: string } | null;
}

function cardsText(inv: Inventory): string {
  return `${inv.cards.length} card${inv.cards.length === 1 ? "" : "s"} of ${inv.host} from ${inv.source}`;
}

function writeFile(path: string, text: string): void {
  writeInRepository(path, text);
}

function defaultBranch(root: string, env: NodeJS.ProcessEnv): string {
  const remote = gitOut(root, ["symbolic-ref", "--short", "-q", "refs/remotes/origin/HEAD"], env);
  if (remote) return remote.replace(/^origin\//, "");
  return gitOut(root, ["symbolic-ref", "--short", "-q", "HEAD"], env) || "main";
}

/** bin/kvgate-hook of the kvgate that is running, named relative to the repository when it lives inside it. */
function runnerPath(root: string, pkg: string = packRoot()): string {
  const abs = join(pkg, "bin", "kvgate-hook");
  if (!existsSync(abs)) throw new GateError(`kvgate's hook runner ${abs} is missing`, { hint: "reinstall kvgate" });
  const rel = relative(root, abs);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : abs;
}

/** The override variable the gate honours (secrets.override), which the proof must not carry. */
function overrideName(root: string): string {
  const name = CONFIG_NAMES.find((n) => existsSync(join(root, n)));
  if (!name) return "ALLOW_SECRETS";
  try {
    return parseConfig(readFileSync(join(root, name), "utf8"), name, cardLookupOf(loadPack())).secrets?.override ?? "ALLOW_SECRETS";
  } catch {
    return "ALLOW_SECRETS";
  }
}

export interface InitOptions {
  /** `--from-host [FILE]`: the card inventory from nvidia-smi (run here: true; a saved output: its path). */
  fromHost?: string | true;
  /** `--host NAME[,NAME…]`: the hosts the inventory is for (default: the one the seats name, else this machine's name). */
  host?: string;
}

/** `node_modules/` in .gitignore: kvgate is installed as a devDependency, and its folder is not the fleet's. */
function ignoreNodeModules(root: string): string | null {
  const file = join(root, ".gitignore");
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  if (/^\/?node_modules\/?\s*$/m.test(text)) return null;
  writeFile(file, `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}node_modules/\n`);
  return "added     node_modules/ to .gitignore";
}

export async function runInit(dir: string, env: NodeJS.ProcessEnv = process.env, opts: InitOptions = {}): Promise<InitReport> {
  const top = gitOut(dir, ["rev-parse", "--show-toplevel"], env);
  if (!top)
    throw new GateError(`${dir} is not in a git repository`, {
      hint: "run kvgate init inside the repository (git init first), or pass --repo",
    });
  const root = top;
  const ctx: Context = { root, runner: runnerPath(root), env };
  const lines: string[] = [];
  let changed = 0;

  // 1. The hooks, the way this repository already runs hooks.
  const huskyHere = huskyState(root);
  const pick = existsSync(join(root, PRE_COMMIT_CONFIG)) ? preCommitFramework : huskyHere.declared || huskyHere.bin ? husky : plainGit;
  const hooks: ModeResult = pick(ctx);
  lines.push(`hooks     ${hooks.mode}`, ...hooks.lines);
  changed += hooks.changed;

  // 2. The starter config, only when there is none.
  const existing = CONFIG_NAMES.find((n) => existsSync(join(root, n)));
  if (existing) {
    lines.push(`kept      ${existing} (never overwritten)`);
  } else {
    const pack = loadPack();
    const found = await discover(root, pack);
    const hosts = hostsFor(found.services, opts.host);
    const fromHost = opts.fromHost !== undefined ? hostCards(opts.fromHost) : null;
    // Without the host's own figures: the totals an observed file (kvgate observe --write) recorded,
    // else the card the repository names, when rules/cards.yaml knows it.
    const observed = fromHost ? null : observedInventories(root);
    const named = fromHost || observed?.inventories.length ? null : inventoriesFrom(cardNamesIn(root), found.services, hosts[0] ?? "");
    // One nvidia-smi output for each host named (identical machines, such as an Ansible group).
    const inventories: Inventory[] = fromHost
      ? hosts.map((host) => ({ host, ...fromHost }))
      : observed?.inventories.length
        ? observed.inventories
        : (named?.inventories ?? []);
    const text = starterConfig({ ...found, inventories });
    parseConfig(text, "kvgate.yaml", cardLookupOf(pack)); // a starter that does not validate is our bug: fail here, not at the first commit
    writeFile(join(root, "kvgate.yaml"), text);
    changed++;
    const n = found.services.length;
    lines.push(
      `wrote     kvgate.yaml (${n} seat${n === 1 ? "" : "s"} found${found.servicesGlob ? `, services: "${found.servicesGlob}"` : ""}; ${
        fromHost
          ? cardsText({ ...fromHost, host: hosts.join(", ") })
          : inventories.length > 0
            ? inventories.map(cardsText).join("; ")
            : "no card inventory: the TODO stanza to fill, every seat refused as unsized until it is"
      })`,
    );
    for (const n of [...(observed?.notes ?? []), ...(named?.notes ?? [])]) lines.push(`card      ${n}`);
    for (const t of found.notTaken) lines.push(`not taken ${t.path}: ${t.why}`);
  }
  const ignored = ignoreNodeModules(root);
  if (ignored) {
    lines.push(ignored);
    changed++;
  }

  // 3. The workflow.
  const workflow = join(root, ".github", "workflows", "kvgate.yml");
  if (existsSync(workflow)) {
    lines.push("kept      .github/workflows/kvgate.yml");
  } else {
    writeFile(workflow, workflowYaml(defaultBranch(root, env)));
    changed++;
    lines.push(
      "wrote     .github/workflows/kvgate.yml (fetch-depth: 0, the kvgate Action with policy-from: base, a SARIF upload that cannot fail the job)",
    );
  }

  // 4. The proof: the installed hooks on a canary commit.
  if (!hooks.proof) return { root, mode: hooks.mode, lines, changed, live: false, notLive: hooks.notLive };
  const proof = proveHooks(root, hooks.proof, { override: overrideName(root), env });
  lines.push(...proof.lines);
  if (!proof.ok) {
    return {
      root,
      mode: hooks.mode,
      lines,
      changed,
      live: false,
      notLive: {
        reason: "the installed hooks did not refuse the canary commit (their output is below)",
        fix: ["fix what the output says, then run npx kvgate init again"],
        output: proof.output,
      },
    };
  }
  return { root, mode: hooks.mode, lines, changed, live: true, notLive: null };
}
