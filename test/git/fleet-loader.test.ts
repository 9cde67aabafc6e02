// src/load/fleet.ts over fake snapshots: which files a fleet load reads, and what the run-wide
// loader shares (a range's unit N+1 before is unit N's after; one Policy per config text).
import { describe, expect, it } from "vitest";
import type { Snapshot } from "../../src/git/types.js";
import picomatch from "picomatch";
import { createFleetLoader, loadFleet } from "../../src/load/fleet.js";
import { pathMatcher } from "../../src/load/service-index.js";
import { loadPolicy } from "../../src/config/load.js";
import { loadPack } from "../../src/rules/load.js";

const pack = loadPack();
const policy = loadPolicy(null, "kvgate.yaml", pack);
const ENV = (host: string) => `ENGINE=vllm\nHOST=${host}\nGPU=0\nMODEL=Qwen/Qwen3-8B\nMAX_MODEL_LEN=4096\n`;

/** A snapshot of `files` that counts its list() calls and records every path it was asked to read. */
function fake(label: string, files: Record<string, string>): Snapshot & { lists: number; reads: string[][] } {
  const snap = {
    label,
    lists: 0,
    reads: [] as string[][],
    async list() {
      snap.lists++;
      return Object.keys(files).sort();
    },
    async read(paths: string[]) {
      snap.reads.push([...paths].sort());
      return new Map(paths.map((p) => [p, p in files ? Buffer.from(files[p] as string) : null]));
    },
  };
  return snap;
}

describe("pathMatcher answers as picomatch(glob, { dot: true }) does", () => {
  const globs = [
    "scripts/*.env",
    "scripts/**/*.env",
    "**/*.env",
    "scripts/{a,b}.env",
    "scripts/[ab].env",
    "scripts/a.env",
    "scripts/*.env*",
    "!scripts/*.env",
    "{scripts,etc}/*.env",
    "./scripts/*.env",
    "sc*/*.env",
    "scripts/sub/*.env",
    "*.env",
  ];
  const paths = [
    "scripts/a.env",
    "scripts/.h.env",
    "scripts/sub/a.env",
    "scripts\\a.env",
    "a.env",
    "scripts/b.env",
    "scripts/a.env.bak",
    "scripts/ü.env",
    "scripts/a b.env",
    "etc/a.env",
    "scriptsx/a.env",
    "scripts",
    "scripts/",
    "scripts/sub/deep/a.env",
    ".env",
  ];
  it.each(globs)("%s", (glob) => {
    const mine = pathMatcher(glob);
    const theirs = picomatch(glob, { dot: true });
    expect(paths.map((p) => mine(p))).toEqual(paths.map((p) => theirs(p)));
  });
  it("the grid is not trivial: some paths match and some do not", () => {
    expect(paths.filter(pathMatcher("scripts/*.env"))).toEqual([
      "scripts/a.env",
      "scripts/.h.env",
      "scripts/b.env",
      "scripts/ü.env",
      "scripts/a b.env",
    ]);
  });
});

describe("loadFleet", () => {
  it.each([
    ["services only", { "scripts/a.env": ENV("h1"), "src/x.ts": "" }, ["scripts/a.env"], ["a"]],
    [
      "a ledger file of a service is read; one of no service is not",
      {
        "scripts/a.env": ENV("h1"),
        "scripts/a.ledger.yaml": "x: 1\n",
        "scripts/zz.ledger.yaml": "x: 1\n",
      },
      ["scripts/a.env", "scripts/a.ledger.yaml"],
      ["a"],
    ],
    [
      "dot files match the glob; sub-folders and other suffixes do not",
      {
        "scripts/.h.env": ENV("h1"),
        "scripts/sub/b.env": ENV("h1"),
        "scripts/a.env.bak": "",
        "scripts/c.env": ENV("h2"),
      },
      ["scripts/.h.env", "scripts/c.env"],
      [".h", "c"],
    ],
    // Not under scripts/ (one name, not two folders): the glob matches nothing, so discovery reads it as
    // an env file at the top level, and it names an engine.
    ["a path with a backslash is one name, not two folders", { "scripts\\a.env": ENV("h1") }, ["scripts\\a.env"], ["scripts\\a"]],
  ])("%s", async (_, files, read, services) => {
    const snap = fake("s", files);
    const fleet = (await loadFleet(snap, policy, pack)).written;
    expect(snap.reads).toEqual([read]);
    expect(fleet.services.map((s) => s.name)).toEqual(services);
    expect(fleet.paths).toEqual(Object.keys(files).sort());
  });

  it("every input kind is read, whoever calls: env files, the ledger facts of a service, the playbooks", async () => {
    const snap = fake("s", {
      "scripts/a.env": ENV("h1"),
      "scripts/a.ledger.yaml": "x: 1\n",
      "playbooks/p.yaml": "- hosts: h1\n  tasks:\n    - lineinfile: { path: scripts/a.env, line: MAX_MODEL_LEN=8192 }\n",
    });
    const fleet = (await loadFleet(snap, policy, pack)).written;
    expect(snap.reads).toEqual([["playbooks/p.yaml", "scripts/a.env", "scripts/a.ledger.yaml"]]);
    expect(Object.keys(fleet.ledgerFacts)).toEqual(["a"]);
    expect(fleet.playbooks?.map((p) => [p.path, p.deploys.map((d) => d.service)])).toEqual([["playbooks/p.yaml", ["a"]]]);
  });

  it("loading the same snapshot twice reads it twice (each load is fresh) with the same answer", async () => {
    const snap = fake("s", { "scripts/a.env": ENV("h1"), "scripts/a.ledger.yaml": "x: 1\n" });
    const one = await loadFleet(snap, policy, pack);
    const two = await loadFleet(snap, policy, pack);
    expect(two).not.toBe(one);
    expect(two.written.services.map((s) => s.name)).toEqual(one.written.services.map((s) => s.name));
    expect(snap.reads).toEqual([
      ["scripts/a.env", "scripts/a.ledger.yaml"],
      ["scripts/a.env", "scripts/a.ledger.yaml"],
    ]);
  });
});

describe("createFleetLoader", () => {
  it("a range: unit N+1's before (same label as unit N's after) is not loaded again", async () => {
    const loader = createFleetLoader();
    const states = ["c0", "c1", "c2", "c3"].map((sha, i) => fake(sha, { "kvgate.yaml": "version: 1\n", "scripts/a.env": ENV(`h${i}`) }));
    // What range.ts hands out: a fresh Snapshot object per unit side, labelled by commit sha.
    const again = states.map((s) => fake(s.label, { "kvgate.yaml": "version: 1\n", "scripts/a.env": "ENGINE=vllm\n" }));
    const hosts: (string | null)[] = [];
    for (let i = 1; i < states.length; i++) {
      const after = states[i]!;
      const p = await loader.policy(after, pack);
      const a = await loader.load(after, p, pack);
      const b = await loader.load(again[i - 1]!, p, pack);
      hosts.push(a.running.services[0]?.host ?? null, b.running.services[0]?.host ?? null);
    }
    // Unit 1's before (c0) is loaded; every later before is the previous after, from memory.
    expect(hosts).toEqual(["h1", null, "h2", "h1", "h3", "h2"]);
    expect(states.map((s) => s.lists)).toEqual([0, 1, 1, 1]);
    expect(again.map((s) => s.lists)).toEqual([1, 0, 0, 0]);
  });

  it("the same label with another policy is loaded again; a failed load is not kept", async () => {
    const loader = createFleetLoader();
    const snap = fake("c1", { "scripts/a.env": ENV("h1") });
    const f1 = await loader.load(snap, policy, pack);
    expect(await loader.load(snap, policy, pack)).toBe(f1);
    const other = loadPolicy("kv: { factor: 2 }\n", "kvgate.yaml", pack);
    expect(await loader.load(snap, other, pack)).not.toBe(f1);
    expect(await loader.load(snap, other, pack)).toBe(await loader.load(snap, other, pack));
    expect(snap.lists).toBe(2);
    let fail = true;
    const flaky: Snapshot = {
      label: "c2",
      list: async () => {
        if (fail) throw new Error("boom");
        return [];
      },
      read: async () => new Map(),
    };
    await expect(loader.load(flaky, policy, pack)).rejects.toThrow("boom");
    fail = false;
    expect((await loader.load(flaky, policy, pack)).running.services).toEqual([]);
  });

  it("policy: one Policy object per config text; a changed kvgate.yaml is a new one", async () => {
    const loader = createFleetLoader();
    const a = await loader.policy(fake("c1", { "kvgate.yaml": "kv: { factor: 2 }\n" }), pack);
    const b = await loader.policy(fake("c2", { "kvgate.yaml": "kv: { factor: 2 }\n" }), pack);
    const c = await loader.policy(fake("c3", { "kvgate.yaml": "kv: { factor: 3 }\n" }), pack);
    const none = await loader.policy(fake("c4", {}), pack);
    expect(b).toBe(a);
    expect(c).not.toBe(a);
    expect([a.kv.factor, c.kv.factor, none.kv.factor]).toEqual([2, 3, 1.25]);
    await expect(loader.policy(fake("c5", { "kvgate.yaml": "kv: [\n" }), pack)).rejects.toThrow(/kvgate\.yaml/);
  });
});
