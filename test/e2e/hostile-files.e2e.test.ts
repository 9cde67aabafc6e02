// Issue 26 through the built CLI in real repositories: every file kvgate reads or writes in a working
// tree goes through one door (src/git/door.ts). A symlink to a device or out of the repository, a FIFO,
// a file over its cap, a config.json with absurd numbers: refused as findings at the file, promptly,
// never read, quoted or written through; `--fix` refuses a line holding a secret and a file changed
// since it was staged.
import { afterEach, describe, expect, test } from "vitest";
import { spawnSync, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeFolder, makeRepo, type TempFolder, type TempRepo } from "../helpers/repo.js";
import { BIN } from "../helpers/cli.js";
import { GIT_ENV } from "../helpers/repo.js";

const made: { cleanup(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

/** The built CLI with a deadline: a hang on today's main must fail the test, not the run. */
function run(args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...GIT_ENV, NO_COLOR: "1", ...env },
    encoding: "utf8",
    timeout: 30_000,
    killSignal: "SIGKILL",
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}`, stdout: r.stdout, timedOut: r.signal === "SIGKILL" };
}

/** A folder outside every repository, for what symlinks point at. */
function outside(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "kvgate-outside-")));
  made.push({ cleanup: () => rmSync(dir, { recursive: true, force: true }) });
  return dir;
}

const KVGATE_YAML = "fleet:\n  hosts:\n    h1:\n      gpus:\n        - { index: 0, total: 96GiB }\n";
const CAP = `ARGS=--override-generation-config '{"max_new_tokens":4096}'\n`;
const SEAT = `ENGINE=vllm\nGPU=0\nMODEL=Qwen/Qwen3-8B\nMAX_MODEL_LEN=40960\nKV_CACHE_MEMORY_BYTES=8G\n`;

async function fleet(files: Record<string, string>, commit = true): Promise<TempRepo> {
  const r = await makeRepo();
  made.push(r);
  r.write("kvgate.yaml", KVGATE_YAML);
  for (const [p, t] of Object.entries(files)) r.write(p, t);
  r.stage();
  if (commit) r.commit("fleet");
  return r;
}

interface JsonFinding {
  rule: string;
  file: string | null;
  line: number | null;
  message: string;
}
const findings = (stdout: string): JsonFinding[] => (JSON.parse(stdout) as { findings: JsonFinding[] }).findings;

describe("reads through the door: MODEL_CONFIG and every read file", () => {
  test("a MODEL_CONFIG symlink to /dev/zero: check --all and explain end promptly, the file refused as a device path outside the repository", async () => {
    const r = await fleet({ "scripts/q.env": `${SEAT}${CAP}MODEL_CONFIG=cfg/config.json\n` });
    r.symlink("/dev/zero", "cfg/config.json");
    const check = run(["check", "--all", "--format", "json"], r.dir);
    expect(check.timedOut).toBe(false);
    expect(check.code).toBe(1);
    const f = findings(check.stdout).find((x) => x.file === "cfg/config.json");
    expect(f?.rule).toBe("engine/unknown-model");
    expect(f?.message).toContain("cfg/config.json: the file is a symlink that leads outside the repository: kvgate does not follow it");
    const explain = run(["explain", "q"], r.dir);
    expect([explain.timedOut, explain.code]).toEqual([false, 0]);
    expect(explain.out).toContain("unknown model");
  });

  test("a MODEL_CONFIG that is a FIFO in the repository is refused as one, not waited on", async () => {
    const r = await fleet({ "scripts/q.env": `${SEAT}${CAP}MODEL_CONFIG=cfg/config.json\n` });
    mkdirSync(join(r.dir, "cfg"), { recursive: true });
    execFileSync("mkfifo", [join(r.dir, "cfg/config.json")]);
    const check = run(["check", "--all", "--format", "json"], r.dir);
    expect(check.timedOut).toBe(false);
    expect(findings(check.stdout).find((x) => x.file === "cfg/config.json")?.message).toContain(
      "the file is a FIFO (named pipe), not a regular file: kvgate reads only regular files",
    );
  });

  test("a MODEL_CONFIG symlink to a file outside the repository is refused and not one byte of it is shown", async () => {
    const away = outside();
    writeFileSync(join(away, "config.json"), '{"secret_marker": "OUTSIDE-BYTES-7f3a9c", not json');
    const r = await fleet({ "scripts/q.env": `${SEAT}${CAP}MODEL_CONFIG=cfg/config.json\n` });
    r.symlink(join(away, "config.json"), "cfg/config.json");
    for (const format of ["text", "json"]) {
      const check = run(["check", "--all", "--format", format], r.dir);
      expect(check.code).toBe(1);
      expect(check.out).toContain("cfg/config.json");
      expect(check.out).toContain("leads outside the repository");
      expect(check.out).not.toContain("OUTSIDE-BYTES");
      expect(check.out).not.toContain("secret_marker");
    }
    // A symlink that stays inside the repository is followed.
    const inside = await fleet({ "scripts/q.env": `${SEAT}${CAP}MODEL_CONFIG=cfg/config.json\n`, "real/config.json": "{ not json" });
    inside.symlink("../real/config.json", "cfg/config.json");
    expect(run(["check", "--all"], inside.dir).out).toContain("cfg/config.json is not valid JSON");
  });

  test("check --all does not read through a folder replaced by a symlink to outside the repository", async () => {
    const away = outside();
    writeFileSync(join(away, "q.env"), `${SEAT}${CAP}GITHUB_TOKEN=ghp_${"Ab3".repeat(12)}\n`);
    const r = await fleet({ "scripts/q.env": `${SEAT}${CAP}` });
    r.remove("scripts");
    r.symlink(away, "scripts");
    const check = run(["check", "--all", "--format", "json"], r.dir);
    expect(check.out).not.toMatch(/secret\/github-token/);
    expect(check.out).not.toContain("ghp_");
    // The tracked path is skipped as the symlink it now is, and the service it held is not read: an error
    // at the file (env/parse, never a silently smaller fleet), and nothing of the target shown.
    expect(findings(check.stdout).map((f) => f.rule)).toEqual(["env/parse", "fleet/no-services"]);
    expect(findings(check.stdout)[0]?.message).toContain("scripts/q.env is not read (symlink)");
    expect(check.code).toBe(1);
  });

  test("a file over its kind's cap is a finding naming the file, the cap and the fix, read from disk or from git", async () => {
    const big = `${SEAT}${CAP}# ${"x".repeat(1024 * 1024)}\n`;
    const r = await fleet({ "scripts/q.env": big }, false);
    for (const args of [
      ["check", "--format", "json"],
      ["check", "--all", "--format", "json"],
    ]) {
      const check = run(args, r.dir);
      const f = findings(check.stdout).find((x) => x.rule === "env/parse");
      expect(f?.file).toBe("scripts/q.env");
      expect(f?.message).toContain("the file is 1 MiB (1,048,722 bytes), over the 1 MiB kvgate reads of env files");
      expect(f?.message).toContain("docs/gated-files.md#caps");
    }
    const cfg = await fleet({
      "scripts/q.env": `${SEAT}${CAP}MODEL_CONFIG=m/config.json\n`,
      "m/config.json": `{"pad": "${"x".repeat(9 * 1024 * 1024)}"}`,
    });
    const check = run(["check", "--all", "--format", "json"], cfg.dir);
    expect(findings(check.stdout).find((x) => x.file === "m/config.json")?.message).toContain("over the 8 MiB kvgate reads of model files");
  });

  test("--baseline naming a FIFO or a device is refused at once (exit 2)", async () => {
    const r = await fleet({ "scripts/q.env": `${SEAT}${CAP}` });
    execFileSync("mkfifo", [join(r.dir, "baseline.json")]);
    for (const [file, what] of [
      ["baseline.json", "a FIFO (named pipe)"],
      ["/dev/zero", "a device"],
    ]) {
      const res = run(["check", "--all", "--baseline", file as string], r.dir);
      expect(res.timedOut).toBe(false);
      expect(res.code).toBe(2);
      expect(res.out).toContain(`--baseline ${file}: it is ${what}, not a regular file`);
    }
  });
});

describe("sanity bounds and shape limits on what the readers parse", () => {
  test("num_hidden_layers: 400000000 is refused with the field named (it ran node out of memory)", async () => {
    const config = {
      model_type: "qwen3",
      num_hidden_layers: 400_000_000,
      num_attention_heads: 32,
      num_key_value_heads: 8,
      head_dim: 128,
      hidden_size: 4096,
      max_position_embeddings: 40960,
      torch_dtype: "bfloat16",
      vocab_size: 151936,
    };
    const r = await fleet({ "scripts/q.env": `${SEAT}${CAP}`, "models/Qwen/Qwen3-8B/config.json": JSON.stringify(config) });
    const check = run(["check", "--all", "--format", "json"], r.dir);
    expect(check.timedOut).toBe(false);
    expect(check.code).toBe(1);
    expect(findings(check.stdout).find((x) => x.file === "models/Qwen/Qwen3-8B/config.json")?.message).toContain(
      "num_hidden_layers is 400,000,000, above the 4,096 any model has",
    );
  });

  test.each([
    ["kvgate.yaml", (t: string) => ({ "kvgate.yaml": `${KVGATE_YAML}x: [${t}]\n` }), /kvgate\.yaml:6: holds more than 250,000 YAML nodes/],
    [
      "a ledger facts file",
      (t: string) => ({ "scripts/r.env": "ENGINE=radiance\nHOST=h1\nGPU=0\n", "scripts/r.ledger.yaml": `plane_mib: [${t}]\n` }),
      /scripts\/r\.ledger\.yaml:1 error radiance\/ledger-facts .*holds more than 250,000 YAML nodes/,
    ],
  ])("400,000 YAML nodes (under the byte cap) in %s are refused before the parser runs", async (_name, files, message) => {
    const r = await fleet(files("1,".repeat(400_000) + "1"));
    const res = run(["check", "--all"], r.dir);
    expect(res.out).toMatch(message);
  });
});

describe("writes through the door: --fix, observe --write, init", () => {
  test("--fix refuses a line holding a secret: nothing of it printed, the file left as it was", async () => {
    const key = `sk-proj-${"Ab3dEf9hJk".repeat(5)}`;
    const line = `ARGS=--override-generation-config '{"max_new_tokens":99999,"api_key":"${key}"}'\n`;
    const r = await fleet({ "scripts/q.env": `${SEAT}${line}` });
    const res = run(["check", "--all", "--fix"], r.dir);
    expect(res.out).not.toContain(key);
    expect(res.out).not.toContain(key.slice(8, 24));
    expect(res.out).toContain(
      "scripts/q.env:6 holds a value the secret detectors match: kvgate does not rewrite a line holding a secret; set --override-generation-config there by hand",
    );
    // The pin on line 5 is still fixed; line 6 keeps the real key, not a masked one.
    expect(readFileSync(join(r.dir, "scripts/q.env"), "utf8")).toBe(`${SEAT.replace("=8G", "=8053063680")}${line}`);
  });

  test("--fix refuses a file changed since it was staged, and says to stage it again", async () => {
    const r = await fleet({ "scripts/q.env": `${SEAT}${CAP}` }, false);
    const edited = `# moved down a line\nKV_CACHE_MEMORY_BYTES=4G\n${SEAT}${CAP}`;
    r.write("scripts/q.env", edited);
    const res = run(["check", "--fix"], r.dir);
    expect(res.out).toContain(
      "scripts/q.env changed in the working tree since it was staged, so the findings' lines are not its lines: stage it (git add scripts/q.env) and run kvgate check --fix again",
    );
    expect(readFileSync(join(r.dir, "scripts/q.env"), "utf8")).toBe(edited);
    r.stage();
    expect(run(["check", "--fix"], r.dir).out).toMatch(/fixed scripts\/q\.env:\d+ KV_CACHE_MEMORY_BYTES/);
  });

  test.each(["file", "folder"])("--fix never writes outside the repository through a symlinked env %s", async (kind) => {
    const away = outside();
    const text = `${SEAT}${CAP}`;
    writeFileSync(join(away, "q.env"), text);
    const r = await fleet({ "scripts/q.env": text }, false);
    if (kind === "file") {
      r.remove("scripts/q.env");
      r.symlink(join(away, "q.env"), "scripts/q.env");
    } else {
      r.remove("scripts");
      r.symlink(away, "scripts");
    }
    const res = run(["check", "--fix"], r.dir);
    expect(res.out).toContain("scripts/q.env is");
    expect(res.out).toContain("leads outside the repository");
    expect(readFileSync(join(away, "q.env"), "utf8")).toBe(text);
  });

  test("observe --write refuses a symlink that leads outside the repository", async () => {
    const away = outside();
    const r = await fleet({ "scripts/q.env": `${SEAT}${CAP}` });
    r.write(
      "smi.csv",
      "timestamp, index, memory.used [MiB], memory.total [MiB]\n2026/10/01 00:00:00.000, 0, 1000 MiB, 97871 MiB\n2026/10/01 00:01:00.000, 0, 1000 MiB, 97871 MiB\n",
    );
    r.symlink(join(away, "observed.yaml"), "observed.yaml");
    const res = run(["observe", "--metrics", "smi.csv", "--host", "h1", "--write", "observed.yaml"], r.dir);
    expect(res.code).toBe(2);
    expect(res.out).toContain("cannot write observed.yaml is a symlink (or in a symlinked folder) that leads outside the repository");
    expect(existsSync(join(away, "observed.yaml"))).toBe(false);
    // A path typed outside the repository is the user's to name.
    const typed = run(["observe", "--metrics", "smi.csv", "--host", "h1", "--write", join(away, "typed.yaml")], r.dir);
    expect(typed.code).toBe(0);
    expect(readFileSync(join(away, "typed.yaml"), "utf8")).toContain("version: 1");
  });

  test("init does not write kvgate.yaml through a dangling symlink out of the repository", async () => {
    const away = outside();
    const r = await fleet({ "scripts/q.env": `${SEAT}${CAP}` });
    r.remove("kvgate.yaml");
    r.symlink(join(away, "kvgate.yaml"), "kvgate.yaml");
    const res = run(["init"], r.dir);
    expect(res.out).toContain("kvgate.yaml is a symlink (or in a symlinked folder) that leads outside the repository");
    expect(res.code).toBe(2);
    expect(existsSync(join(away, "kvgate.yaml"))).toBe(false);
  });
});

describe("a plain folder", () => {
  let f: TempFolder;
  test("a symlink to /dev/zero named by MODEL_CONFIG in a folder that is not a repository", async () => {
    f = await makeFolder();
    made.push(f);
    f.write("kvgate.yaml", KVGATE_YAML);
    f.write("scripts/q.env", `${SEAT}${CAP}MODEL_CONFIG=cfg/config.json\n`);
    f.symlink("/dev/zero", "cfg/config.json");
    const res = run(["check", "--all"], f.dir);
    expect(res.timedOut).toBe(false);
    expect(res.out).toContain("cfg/config.json: the file is a symlink that leads outside the repository");
  });
});
