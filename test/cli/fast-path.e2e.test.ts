// The hook's fast path against the full path, on a table of staged changes: the same exit code, the
// same stdout, the same recorded verdict and the same trailers the prepare-commit-msg hook writes from
// it. Each row also says whether the fast path may decide it: a fleet path, a config, a possible
// secret, a binary or an excluded file must take the full path.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import { FAKE, pullSecret } from "../secrets/helpers.js";
import { SAMPLE } from "../secrets/families.js";

// An engine kvgate does not size, without a GPU: nothing for engine/unknown or the card checks to say.
const GOOD_ENV = "ENGINE=tgi\nHOST=fv-ml2\nPORT=8080\n";
const RADIANCE_BAD = 'ENGINE=radiance\nHOST=fv-ml2\nGPU=0\nSERVE_ARGS="--vram-kv-mib 4096"\n';
const PLAYBOOK = "- hosts: fv-ml2\n  tasks:\n    - name: deploy x\n      ansible.builtin.debug:\n        msg: x\n";
/** Real-shaped, not a placeholder (listed by value in kvgate's own kvgate.yaml). */
const KEY = "AKIAQYLPMN5HHHFPZAM2";
const b64 = (s: string): string => Buffer.from(s).toString("base64");
/** A `.dockerconfigjson` pull secret whose auth is a made-up GitHub token (assembled: no scanner flags this file). */
const PULL_SECRET = [
  "apiVersion: v1",
  "kind: Secret",
  "type: kubernetes.io/dockerconfigjson",
  "metadata: { name: ghcr }",
  "data:",
  `  .dockerconfigjson: ${b64(JSON.stringify({ auths: { "ghcr.io": { auth: b64(`bot:${["ghp", "a8Kz3Qm1Xv7Ln2Rt9Yp4Wc6Bd0Fh5Js8Ge3U"].join("_")}`) } } }))}`,
  "",
].join("\n");

// Files the fleet reads that no fleet glob matches (issue 24 item 8): the key lists each one it read,
// so a change to any takes the full path, which refuses what the fast path would have passed.
const INVENTORY = "version: 1\nfleet:\n  hosts:\n    gpu-box: { gpus: [ { index: 0, total: 24564MiB } ] }\n";
const VLLM_CAP = `--override-generation-config '{\\"max_new_tokens\\":1024}'`;
/** A local model the env file describes by MODEL_CONFIG, outside models/: 8 KV heads × 128 × 28 layers. */
const modelConfig = (maxLen: number) =>
  JSON.stringify({
    architectures: ["Qwen3ForCausalLM"],
    model_type: "qwen3",
    hidden_size: 2048,
    intermediate_size: 6144,
    num_hidden_layers: 28,
    num_attention_heads: 16,
    num_key_value_heads: 8,
    head_dim: 128,
    max_position_embeddings: maxLen,
    vocab_size: 151936,
    torch_dtype: "bfloat16",
  });
const LOCAL_SEAT = {
  "kvgate.yaml": INVENTORY,
  "scripts/local.env": `VLLM_IMAGE=vllm/vllm-openai:v0.10.2\nCUDA_VISIBLE_DEVICES=0\nMODEL_CONFIG=weights/acme/config.json\nVLLM_EXTRA_ARGS="--model /weights/acme --max-model-len 8192 --kv-cache-memory-bytes 1610612736 ${VLLM_CAP}"\n`,
  "weights/acme/config.json": modelConfig(40960),
  "weights/acme/model.safetensors.index.json": '{"metadata":{"total_size":4000000000},"weight_map":{}}\n',
};
/** A compose file whose seat lives in an included file and loads its settings from an env_file target. */
const stack = (len: number) =>
  [
    "services:",
    "  chat:",
    "    image: vllm/vllm-openai:v0.10.2",
    `    command: ["--model", "Qwen/Qwen3-1.7B", "--max-model-len", "${len}", "--kv-cache-memory-bytes", "1610612736", "--override-generation-config", '{"max_new_tokens":1024}']`,
    '    deploy: { resources: { reservations: { devices: [ { driver: nvidia, device_ids: ["0"], capabilities: [gpu] } ] } } }',
    "",
  ].join("\n");
const INCLUDED = { "kvgate.yaml": INVENTORY, "compose.yaml": "include:\n  - stack/vllm.yml\n", "stack/vllm.yml": stack(8192) };
const ENV_FILE_TARGET = {
  "kvgate.yaml": INVENTORY,
  "compose.yaml": [
    "services:",
    "  chat:",
    "    image: vllm/vllm-openai:v0.10.2",
    "    env_file: conf/chat.vars",
    '    deploy: { resources: { reservations: { devices: [ { driver: nvidia, device_ids: ["0"], capabilities: [gpu] } ] } } }',
    "",
  ].join("\n"),
  "conf/chat.vars": `MODEL=Qwen/Qwen3-1.7B\nMAX_MODEL_LEN=8192\nKV_CACHE_MEMORY_BYTES=1610612736\nSERVE_ARGS="${VLLM_CAP}"\n`,
};
const OBSERVED = [
  "version: 1",
  'from: "2026-10-05T00:00:00Z"',
  'until: "2026-10-07T00:00:00Z"',
  "sources:",
  '  - "gpu.csv"',
  "cards:",
  '  - host: "gpu-box"',
  "    index: 0",
  "    plateau_free_bytes: 12884901888",
  '    plateau_at: "2026-10-06T10:00:00Z"',
  "",
].join("\n");
const unit = (pin: number) =>
  `[Service]\nExecStart=/usr/bin/docker run --gpus device=0 vllm/vllm-openai:v0.10.2 --model Qwen/Qwen3-1.7B --max-model-len 8192 --kv-cache-memory-bytes ${pin} ${VLLM_CAP.replace(/\\/g, "")}\n`;

/** A unit that loads its settings from the repository checked out at /opt/fleet on the host. */
const UNIT_WITH_CONF = [
  "[Service]",
  "EnvironmentFile=/opt/fleet/ops/conf/chat.conf",
  // The operator's own script reads the conf (vllm serve itself would read no MAX_MODEL_LEN from it).
  "ExecStart=/opt/fleet/bin/serve-chat",
  "",
].join("\n");
const CHAT_CONF = (len: number) =>
  `ENGINE=vllm\nGPU=0\nMODEL=Qwen/Qwen3-1.7B\nKV_CACHE_MEMORY_BYTES=4831838208\nMAX_MODEL_LEN=${len}\n` +
  `VLLM_EXTRA_ARGS="--override-generation-config '{\\"max_new_tokens\\":1024}'"\n`;

interface Row {
  name: string;
  /** What the committed base holds besides README.md, docs/a.md, scripts/x.env and playbooks/site.yml. */
  base?: Record<string, string>;
  /** Files committed without the gate (a fleet already broken at HEAD). */
  brokenBase?: Record<string, string>;
  change(r: TempRepo): void;
  /** The change stages what it means to (default: everything, `git add -A`). */
  stagesItself?: true;
  fast: boolean;
  code: 0 | 1;
}

const ROWS: Row[] = [
  { name: "a docs edit", change: (r) => r.write("README.md", "fleet config\nmore words. a task.\n"), fast: true, code: 0 },
  { name: "nothing staged", change: () => {}, fast: true, code: 0 },
  {
    name: "a new text file with dots and 'token' but no value",
    change: (r) => r.write("notes/todo.txt", "the token rotation is documented. see https://example.com/docs\n"),
    fast: true,
    code: 0,
  },
  {
    // Lines that passed the prefilter's short keywords before issue 28 (`.`, `sk`, `:a`, `q~`).
    name: "code with dots, 'sk', ':a' and 'Q~' but no value",
    change: (r) => r.write("src/app.js", "const task = require('./ask.js'); // at 12:30:AM\nconst p = '~/Q~backup'; obj.a.b.c = x.y;\n"),
    fast: true,
    code: 0,
  },
  {
    name: "a generic secret word without an assignment",
    change: (r) => r.write("src/lex.js", "if (token.type === tt.name) return passwordField.value;\n"),
    fast: true,
    code: 0,
  },
  {
    // No keyword names a Discord bot token: its gate (the dotted shape) takes the line to the full path.
    name: "a Discord bot token in code (a gated detector)",
    change: (r) => r.write("src/bot.js", `client.login("${SAMPLE["discord-bot-token"] ?? ""}");\n`),
    fast: false,
    code: 1,
  },
  {
    name: "a password in a URL (a gated detector)",
    change: (r) => r.write("docs/mirror.md", "pip install -i https://deploy:Xq7Lm2Vz9Kp4Rw8N@pypi.internal/simple x\n"),
    fast: false,
    code: 1,
  },
  { name: "a deleted docs file", change: (r) => r.remove("docs/a.md"), fast: true, code: 0 },
  { name: "a renamed docs file", change: (r) => r.git("mv", "docs/a.md", "docs/b.md"), fast: true, code: 0 },
  {
    name: "an unstaged kvgate.yaml edit beside a docs edit",
    base: { "kvgate.yaml": "version: 1\n" },
    change: (r) => {
      r.write("README.md", "x\n");
      r.stage(["README.md"]);
      r.write("kvgate.yaml", "version: 1\nservices: other/*.env\n");
    },
    stagesItself: true,
    fast: true,
    code: 0,
  },
  {
    name: "a docs edit over a fleet already broken at HEAD",
    brokenBase: { "scripts/r.env": RADIANCE_BAD },
    change: (r) => r.write("README.md", "y\n"),
    fast: true,
    code: 0,
  },
  { name: "a clean env edit", change: (r) => r.write("scripts/x.env", `${GOOD_ENV}# note\n`), fast: false, code: 0 },
  { name: "a refused env file", change: (r) => r.write("scripts/r.env", RADIANCE_BAD), fast: false, code: 1 },
  { name: "a playbook edit", change: (r) => r.write("playbooks/site.yml", `${PLAYBOOK}# note\n`), fast: false, code: 0 },
  { name: "a kvgate.yaml edit", change: (r) => r.write("kvgate.yaml", "version: 1\n"), fast: false, code: 0 },
  { name: "a compose file", change: (r) => r.write("deploy/compose.yaml", "services: {}\n"), fast: false, code: 0 },
  { name: "an env file moved out of the services glob", change: (r) => r.git("mv", "scripts/x.env", "docs/x.env"), fast: false, code: 0 },
  {
    name: "a services glob of kvgate.yaml's own",
    base: { "kvgate.yaml": "version: 1\nservices: fleet/*.env\n" },
    change: (r) => r.write("fleet/y.env", GOOD_ENV),
    fast: false,
    code: 0,
  },
  { name: "an AWS key in a docs file", change: (r) => r.write("docs/keys.md", `id: ${KEY}\n`), fast: false, code: 1 },
  {
    name: "a password in a new file",
    change: (r) => r.write("app/settings.py", 'DB_PASSWORD = "q8Vr2LxZ7mKp4TnW9sYb"\n'),
    fast: false,
    code: 1,
  },
  // Read only joined to the line before, or decoded: the fast path reads the same texts (issue 29).
  {
    name: "a password on the line after its XML element",
    change: (r) => r.write("app/settings.xml", "<db>\n  <password>\n    q8Vr2LxZ7mKp4TnW9sYb\n  </password>\n</db>\n"),
    fast: false,
    code: 1,
  },
  {
    name: "a token in a pull secret's base64",
    change: (r) =>
      r.write("k8s/pull.yaml", pullSecret({ auths: { "ghcr.io": { auth: Buffer.from(`fleet:${FAKE.ghp}`).toString("base64") } } })),
    fast: false,
    code: 1,
  },
  { name: "a binary file", change: (r) => r.write("img/logo.bin", Buffer.from([0, 1, 2, 0, 255, 0])), fast: false, code: 0 },
  {
    name: "a file under secrets.exclude",
    base: { "kvgate.yaml": 'version: 1\nsecrets:\n  exclude: ["vendor/**"]\n' },
    change: (r) => r.write("vendor/lib.js", "x = 1\n"),
    fast: false,
    code: 0,
  },
  { name: "a symlink", change: (r) => r.symlink("README.md", "link.md"), fast: false, code: 0 },
  {
    name: "a MODEL_CONFIG outside models/ whose model now ends below the context",
    base: LOCAL_SEAT,
    change: (r) => r.write("weights/acme/config.json", modelConfig(4096)),
    fast: false,
    code: 1,
  },
  {
    name: "a compose include target (no compose glob matches it) raising the context past the pin",
    base: INCLUDED,
    change: (r) => r.write("stack/vllm.yml", stack(32768)),
    fast: false,
    code: 1,
  },
  {
    name: "a compose env_file target (not *.env) raising the context past the pin",
    base: ENV_FILE_TARGET,
    change: (r) => r.write("conf/chat.vars", ENV_FILE_TARGET["conf/chat.vars"].replace("8192", "32768")),
    fast: false,
    code: 1,
  },
  {
    name: "the observed file, now malformed",
    base: { ...LOCAL_SEAT, "kvgate.yaml": `${INVENTORY}observed: obs/plateau.yaml\n`, "obs/plateau.yaml": OBSERVED },
    change: (r) => r.write("obs/plateau.yaml", OBSERVED.replace("plateau_free_bytes: 12884901888", "plateau_free_bytes: [")),
    fast: false,
    code: 1,
  },
  {
    name: "a systemd unit whose pin no longer covers its context",
    base: { "kvgate.yaml": INVENTORY, "ops/vllm-chat.service": unit(1610612736) },
    change: (r) => r.write("ops/vllm-chat.service", unit(536870912)),
    fast: false,
    code: 1,
  },
  {
    name: "a systemd unit's EnvironmentFile target (a host path, not *.env) raising the context past the pin",
    base: {
      "kvgate.yaml": INVENTORY,
      "ops/vllm-chat.service": UNIT_WITH_CONF,
      "ops/conf/chat.conf": CHAT_CONF(32768),
    },
    change: (r) => r.write("ops/conf/chat.conf", CHAT_CONF(40960)),
    fast: false,
    code: 1,
  },
  {
    // Over the 4 MiB git leaves undiffed: the fast path's diff calls it binary, and the full path it
    // hands that diff to must still read and scan it (it once skipped it as binary).
    name: "a big text file with a key at its end",
    change: (r) => r.write("logs/big.log", `${"request served in 12 ms\n".repeat(200_000)}id: ${KEY}\n`),
    fast: false,
    code: 1,
  },
  { name: "a Kubernetes manifest", change: (r) => r.write("k8s/svc.yaml", "kind: Service\n"), fast: false, code: 0 },
  {
    // The token is base64 inside base64: no keyword of it is in the added lines, only the full scan decodes it.
    name: "a pull secret's base64 data outside the manifest globs",
    change: (r) => r.write("ops/pull-secret.yaml", PULL_SECRET),
    fast: false,
    code: 1,
  },
];

/** One repository per row, the same base for both paths. */
async function prepared(row: Row): Promise<TempRepo> {
  const r = await makeRepo();
  r.write("README.md", "fleet\n");
  r.write("docs/a.md", "a\n");
  r.write("scripts/x.env", GOOD_ENV);
  r.write("playbooks/site.yml", PLAYBOOK);
  for (const [p, c] of Object.entries(row.base ?? {})) r.write(p, c);
  r.stage();
  r.commit("base", { noVerify: true });
  for (const [p, c] of Object.entries(row.brokenBase ?? {})) r.write(p, c);
  if (row.brokenBase) {
    r.stage();
    r.commit("broken base", { noVerify: true });
  }
  row.change(r);
  if (!row.stagesItself) r.stage();
  return r;
}

interface Outcome {
  code: number | null;
  stdout: string;
  /** The stored verdict without its time. */
  record: unknown;
  /** What `kvgate hook prepare-commit-msg` makes of a message with that record. */
  message: string;
  taken: boolean;
}

function verdictDir(r: TempRepo): string {
  return join(r.dir, ".git", "kvgate", "verdicts");
}

function run(r: TempRepo, fast: boolean): Outcome {
  rmSync(verdictDir(r), { recursive: true, force: true });
  const env = { KVGATE_DEBUG: "1", KVGATE_FAST_PATH: fast ? "1" : "0" };
  const check = kvgate(["check", "--staged"], { cwd: r.dir, env });
  // One record, named by the staged change's key and again by the index file's checksum.
  const files = readdirSync(verdictDir(r)).sort();
  expect(files).toHaveLength(2);
  const [byKey, byIndex] = files.map((f) => readFileSync(join(verdictDir(r), f), "utf8"));
  expect(byIndex).toBe(byKey);
  expect(files[1]).toMatch(/^index-[0-9a-f]{40}\.json$/);
  const { at, ...record } = JSON.parse(byKey as string) as { at: string; key: string };
  expect(files[0]).toBe(`${record.key}.json`);
  expect(Date.parse(at)).not.toBeNaN();
  const msgFile = join(r.dir, ".git", "MSG_TEST");
  writeFileSync(msgFile, "subject\n\nbody\n");
  const hook = kvgate(["hook", "prepare-commit-msg", msgFile, "message"], { cwd: r.dir });
  expect(hook.code, hook.stderr).toBe(0);
  return {
    code: check.code,
    stdout: check.stdout,
    record,
    message: readFileSync(msgFile, "utf8"),
    taken: check.stderr.includes("fast path: taken"),
  };
}

describe("the fast path decides as the full path does", () => {
  const repos = new Map<string, TempRepo>();
  beforeAll(async () => {
    for (const row of ROWS) repos.set(row.name, await prepared(row));
  });
  afterAll(async () => {
    for (const r of repos.values()) await r.cleanup();
  });

  test.each(ROWS.map((row) => [row.name, row] as const))("%s", (_name, row) => {
    const r = repos.get(row.name) as TempRepo;
    // The full path first: it also records what the fast path needs of the policy.
    const full = run(r, false);
    const fast = run(r, true);
    expect(full.taken).toBe(false);
    expect(fast.taken).toBe(row.fast);
    expect(full.code).toBe(row.code);
    expect(fast).toEqual({ ...full, taken: row.fast });
    expect(fast.message).toMatch(
      row.code === 0 ? /Kvgate-Verdict: pass tree=[0-9a-f]{40}/ : /Kvgate-Verdict: not-run|Kvgate-Verdict: fail/,
    );
  });
});

describe("a declined fast path hands its answers to the full path", () => {
  test("a fleet change asks git once for the diff and the config entries, and no write-tree at all", async () => {
    const r = await prepared({
      name: "env",
      change: (x) => x.write("scripts/x.env", GOOD_ENV.replace("8080", "8081")),
      fast: false,
      code: 0,
    });
    try {
      expect(kvgate(["check", "--staged"], { cwd: r.dir }).code).toBe(0);
      const trace = join(r.dir, ".git", "trace.txt");
      const again = kvgate(["check", "--staged"], { cwd: r.dir, env: { KVGATE_DEBUG: "1", GIT_TRACE: trace } });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain("fast path: not taken (fleet path scripts/x.env)");
      // The full path's opening rev-parse and its index listing were started by the fast path...
      expect(again.stderr).toContain("fast path: started rev-parse and 1 index listing(s) early");
      const lines = readFileSync(trace, "utf8").split("\n");
      const commands = lines.map((l) => /trace: built-in: git (\S+)/.exec(l)?.[1]).filter((c) => c !== undefined);
      // ...and taken by it (no second run of either): the fast path's diff and config lookup, the two
      // started early, then only the blob reader. The verdict is keyed by HEAD and that diff.
      expect(commands.filter((c) => c === "diff")).toHaveLength(1);
      expect(commands.filter((c) => c === "write-tree")).toHaveLength(0);
      expect(commands.sort()).toEqual(["cat-file", "diff", "ls-files", "ls-files", "rev-parse"]);
      const key = JSON.parse(readFileSync(join(r.dir, ".git", "kvgate", "fast-path.json"), "utf8")) as { listings: string[][] };
      expect(key.listings).toHaveLength(1);
      expect(key.listings[0]?.slice(0, 6)).toEqual(["ls-files", "-s", "-z", "--full-name", "--", ":(top,glob)scripts/*.env"]);
      // The listing git ran is the one the key records, argument for argument.
      const listed = lines.filter((l) => l.includes("built-in: git ls-files") && l.includes("(top,glob)"));
      expect(listed).toHaveLength(1);
      for (const spec of key.listings[0]?.slice(5) ?? []) expect(listed[0]).toContain(`'${spec}'`);
    } finally {
      await r.cleanup();
    }
  });
});

describe("the fast path trusts nothing it cannot check", () => {
  test("no record of the policy yet, a malformed one, or one from another build: the full path runs", async () => {
    const r = await prepared(ROWS[0] as Row);
    const key = join(r.dir, ".git", "kvgate", "fast-path.json");
    const first = kvgate(["check", "--staged"], { cwd: r.dir, env: { KVGATE_DEBUG: "1" } });
    expect(first.stderr).not.toContain("fast path: taken");
    expect(first.stdout).toBe("kvgate staged: pass (1 file checked, no findings)\n");
    const stored = JSON.parse(readFileSync(key, "utf8")) as Record<string, unknown>;
    expect(stored).toMatchObject({ version: 2, names: ["kvgate.yaml", ".kvgate.yaml"], config: "", exclude: [], excludeRes: [] });
    // Each fleet glob also compiled, as picomatch matches it: the fast path loads no glob library.
    const res = (stored.fleetRes as { source: string; flags: string }[]).map((c) => new RegExp(c.source, c.flags));
    expect(res.some((re) => re.test("deploy/x/compose.override.yaml"))).toBe(true);
    expect(res.some((re) => re.test("docs/readme.md"))).toBe(false);
    // The globs, then every file the fleet read (a literal path each): a change to any takes the full path.
    expect(stored.fleet).toEqual([
      "scripts/*.env",
      "scripts/**",
      "playbooks/**/*.{yml,yaml}",
      "**/{docker-compose,compose}*.{yml,yaml}",
      "**/*.service",
      "k8s/**/*.{yml,yaml}",
      "deploy/**/*.{yml,yaml}",
      "charts/**/values*.{yml,yaml}",
      "models/**/config.json",
      "models/**/model.safetensors.index.json",
      "**/.env",
      "**/.env.*",
      "**/*.env",
      ".kvgateignore",
      "kvgate.yaml",
      ".kvgate.yaml",
      // Ansible's folders anywhere: a new host_vars file or role template changes what a play deploys.
      "**/ansible.cfg",
      "**/{roles,group_vars,host_vars,vars,inventory,inventories,templates}/**",
      "**/{hosts,inventory}",
      "**/{hosts,inventory}.{ini,yml,yaml}",
      "playbooks/site.yml",
      "scripts/x.env",
    ]);
    expect(kvgate(["check", "--staged"], { cwd: r.dir, env: { KVGATE_DEBUG: "1" } }).stderr).toContain("fast path: taken");
    for (const bad of [
      "{",
      JSON.stringify({ ...stored, build: "another" }),
      JSON.stringify({ ...stored, fleet: "scripts/*.env" }),
      JSON.stringify({ ...stored, fleetRes: [{ source: 1 }] }),
      JSON.stringify({ ...stored, version: 1 }),
      // Nothing but a read-only ls-files is ever started from a key.
      JSON.stringify({ ...stored, listings: [["push", "--", "origin"]] }),
      JSON.stringify({ ...stored, listings: "ls-files" }),
    ]) {
      writeFileSync(key, bad);
      const again = kvgate(["check", "--staged"], { cwd: r.dir, env: { KVGATE_DEBUG: "1" } });
      expect(again.stderr).not.toContain("fast path: taken");
      expect(again.stdout).toBe("kvgate staged: pass (1 file checked, no findings)\n");
    }
    await r.cleanup();
  });

  test("a kvgate.yaml staged since the record was written takes the full path, which refuses what it now covers", async () => {
    const r = await prepared(ROWS[0] as Row);
    kvgate(["check", "--staged"], { cwd: r.dir });
    // Committed without the gate: the record still names the old config; the index's blob id differs.
    r.write("kvgate.yaml", "version: 1\nservices: docs/*.md\n");
    r.stage(["kvgate.yaml"]);
    r.commit("policy", { noVerify: true });
    r.write("docs/r.md", RADIANCE_BAD);
    r.stage();
    const run1 = kvgate(["check", "--staged"], { cwd: r.dir, env: { KVGATE_DEBUG: "1" } });
    expect(run1.stderr).not.toContain("fast path: taken");
    expect(run1.code).toBe(1);
    expect(run1.stdout).toContain("engine/removed-flag");
    await r.cleanup();
  });

  test("a fast path that fails hands the change to the full path, which decides it", async () => {
    const r = await prepared(ROWS[0] as Row);
    kvgate(["check", "--staged"], { cwd: r.dir });
    const run1 = kvgate(["check", "--staged"], { cwd: r.dir, env: { KVGATE_DEBUG: "1", KVGATE_TEST_FAULT: "fast-path" } });
    expect(run1.stderr).not.toContain("fast path: taken");
    expect(run1.code).toBe(0);
    expect(run1.stdout).toBe("kvgate staged: pass (1 file checked, no findings)\n");
    expect(readdirSync(verdictDir(r))).toHaveLength(2);
    await r.cleanup();
  });

  test("a conflicted index: the fast path declines, and the full path refuses to record a verdict for it (exit 2)", async () => {
    const r = await prepared(ROWS[0] as Row);
    expect(kvgate(["check", "--staged"], { cwd: r.dir }).code).toBe(0);
    r.commit("docs", { noVerify: true });
    r.git("checkout", "-q", "-b", "other");
    r.write("scripts/x.env", GOOD_ENV.replace("8080", "8081"));
    r.stage();
    r.commit("other port", { noVerify: true });
    r.git("checkout", "-q", "main");
    r.write("scripts/x.env", GOOD_ENV.replace("8080", "8082"));
    r.stage();
    r.commit("main port", { noVerify: true });
    expect(() => r.git("merge", "-q", "other")).toThrow();
    const fast = kvgate(["check", "--staged"], { cwd: r.dir, env: { KVGATE_DEBUG: "1" } });
    expect(fast.stderr).toContain("fast path: not taken (status U of scripts/x.env)");
    expect(fast.code).toBe(2);
    expect(fast.stderr).toMatch(/the index has unmerged paths \(scripts\/x\.env\): no verdict can be recorded/);
    expect(fast.stderr).toMatch(/resolve the conflict and stage the result/);
    expect(fast.stderr).not.toContain("internal error");
    const full = kvgate(["check", "--staged"], { cwd: r.dir, env: { KVGATE_FAST_PATH: "0" } });
    expect({ code: full.code, stdout: full.stdout, stderr: full.stderr }).toEqual({
      code: 2,
      stdout: fast.stdout,
      stderr: fast.stderr.replace(/^kvgate: (fast path|compile cache): .*\n/gm, ""),
    });
    await r.cleanup();
  });
});

describe("a change to a file the fleet read outside the globs is about the fleet", () => {
  test("its verdict line states the coverage, as a change to an env file's does", async () => {
    const row = ROWS.find((x) => x.name.startsWith("a compose env_file target")) as Row;
    const r = await prepared(row);
    try {
      const run = kvgate(["check", "--staged"], { cwd: r.dir });
      expect(run.code).toBe(1);
      expect(run.stdout).toContain("conf/chat.vars:3 error kv/covers-context chat: KV pin 1.5 GiB < required 4.5 GiB");
      expect(run.stdout.trimEnd().split("\n").at(-1)).toBe(
        "kvgate staged: 1 error, 0 warnings, 1 notice; 1 seat sized on 1 card; 1 service not an engine (x); 0 unsized — REFUSED",
      );
    } finally {
      await r.cleanup();
    }
  });
});
