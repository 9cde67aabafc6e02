// Issue 12 item 5: nothing hostile reaches the terminal or leaks. Every shown text goes through the
// pipeline's one masking step: control characters escaped, no piece of a key body quoted, secrets in
// file names and revision names masked — in every output format.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { afterEach, describe, expect, test } from "vitest";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import { FORMATS } from "../../src/report/reporters.js";

const made: TempRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});
async function repo(): Promise<TempRepo> {
  const r = await makeRepo();
  made.push(r);
  r.write("README.md", "fleet\n");
  r.commit("init", { allowEmpty: true });
  r.stage();
  r.commit("readme");
  return r;
}

const SEAT = "ENGINE=tgi\nHOST=fv-ml2\nGPU=0\nPORT=8080\n";

/** A GitHub token no placeholder shape matches: 36 random alphanumerics. */
function token(): string {
  const alnum = randomBytes(96)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "");
  return `ghp_${alnum.slice(0, 36)}`;
}

/** Every output a user or CI sees for the staged change, stdout and stderr of each format. */
function everyOutput(r: TempRepo, args: string[] = []): string[] {
  return FORMATS.map((f) => {
    const run = kvgate(["check", ...args, "--format", f], { cwd: r.dir });
    expect(run.code, `${f}: ${run.stderr}`).toBe(1);
    if (f === "json" || f === "sarif") JSON.parse(run.stdout); // still valid JSON
    return `${run.stdout}\n${run.stderr}`;
  });
}

describe("a pasted PEM key in an env file", () => {
  test("no 8-character run of its body appears in any format, env/parse findings included", async () => {
    const r = await repo();
    const { privateKey } = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
    const body = privateKey.split("\n").filter((l) => l !== "" && !l.startsWith("-----"));
    expect(body.length).toBeGreaterThan(20);
    r.write("scripts/x.env", `${SEAT}${privateKey}`);
    r.stage();
    const outputs = everyOutput(r);
    // The key is refused, and each of its lines is still a parse error (at its line), only masked;
    // the last line may parse (`Ab12cd==` is the key `Ab12cd` set to `=`), the headers never do.
    const doc = JSON.parse(kvgate(["check", "--format", "json"], { cwd: r.dir }).stdout);
    const rules = doc.findings.map((f: { rule: string }) => f.rule);
    expect(rules).toContain("secret/private-key");
    expect(rules.filter((x: string) => x === "env/parse").length).toBeGreaterThanOrEqual(body.length + 1);
    const windows = new Set(body.flatMap((l) => Array.from({ length: l.length - 7 }, (_, i) => l.slice(i, i + 8))));
    for (const [i, out] of outputs.entries()) {
      const leaked = [...windows].filter((w) => out.includes(w));
      expect(leaked, FORMATS[i]).toEqual([]);
    }
  });
});

describe("escape sequences from file content", () => {
  // Erase the line, move up, return: then a fake pass line over the real verdict.
  const HOSTILE = "\u001b[2K\u001b[1A\rkvgate staged: pass";

  test("an env line that tries to print a fake pass is shown escaped in every format", async () => {
    const r = await repo();
    r.write("scripts/x.env", `${SEAT}${HOSTILE}\n`);
    r.stage();
    for (const out of everyOutput(r)) {
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    }
    const text = kvgate(["check"], { cwd: r.dir }).stdout;
    expect(text).toContain('scripts/x.env:5 error env/parse line 5 is not KEY=VALUE: "\\e[2K\\e[1A\\rkvgate staged: pass"');
    expect(text.trim().split("\n").at(-1)).toMatch(/REFUSED$/);
    const f = JSON.parse(kvgate(["check", "--format", "json"], { cwd: r.dir }).stdout).findings.find(
      (x: { rule: string }) => x.rule === "env/parse",
    );
    expect(f.message).toBe('line 5 is not KEY=VALUE: "\\e[2K\\e[1A\\rkvgate staged: pass"');
  });

  test("a file name with an escape sequence and a bidi override is shown escaped", async () => {
    const r = await repo();
    const name = "scripts/a\u001b[31m\u202eb.env";
    r.write(name, `${SEAT}not a line\n`);
    r.stage();
    for (const out of everyOutput(r)) expect(out).not.toMatch(/[\u001b\u202e]/);
    const f = JSON.parse(kvgate(["check", "--format", "json"], { cwd: r.dir }).stdout).findings.find(
      (x: { rule: string }) => x.rule === "env/parse",
    );
    expect(f).toMatchObject({ rule: "env/parse", file: "scripts/a\\e[31m\\u{202e}b.env", line: 5 });
  });
});

describe("secrets in file names and revision names", () => {
  test("a token in a file name (and so the service name) is masked in every format", async () => {
    const r = await repo();
    const t = token();
    r.write(`scripts/${t}.env`, `${SEAT}not a line\n`);
    r.stage();
    for (const out of everyOutput(r)) {
      expect(out).not.toContain(t);
      expect(out).not.toContain(t.slice(4, 12));
    }
    const f = JSON.parse(kvgate(["check", "--format", "json"], { cwd: r.dir }).stdout).findings.find(
      (x: { rule: string }) => x.rule === "env/parse",
    );
    expect(f).toMatchObject({
      rule: "env/parse",
      file: `scripts/${t.slice(0, 4)}…${t.slice(-2)}.env`,
      service: `${t.slice(0, 4)}…${t.slice(-2)}`,
    });
  });

  test("plan shows seat and file names masked and escaped, in text and JSON (issue 26: it printed both raw)", async () => {
    const r = await repo();
    const t = token();
    const vllm = (gpu: number, port: number) => `ENGINE=vllm\nHOST=fv-ml2\nGPU=${gpu}\nPORT=${port}\nMODEL=m\n`;
    r.write(
      "kvgate.yaml",
      "fleet:\n  hosts:\n    fv-ml2: { gpus: [ { index: 0, total: 96GiB }, { index: 1, total: 96GiB } ] }\n" +
        "models:\n  m: { layers: 36, kv_heads: 8, head_dim: 128, max_context: 40960, weights: 16GiB }\n",
    );
    // Both seats on card 0: the plan moves one, naming it and its file.
    r.write(`scripts/${t}.env`, vllm(0, 8080));
    r.write("scripts/e\u001b[2Jx.env", vllm(0, 8081));
    r.stage();
    const runs = [[], ["--format", "json"], ["--raise-contexts"], ["--raise-contexts", "--format", "json"]].map((a) =>
      kvgate(["plan", ...a], { cwd: r.dir }),
    );
    for (const run of runs) {
      expect(run.code).toBe(0);
      expect(run.stdout).not.toContain(t.slice(4, 12));
      expect(run.stdout).not.toMatch(/\u001b/);
    }
    const text = runs[0]?.stdout ?? "";
    expect(text).toContain(`set GPU=1 at scripts/${t.slice(0, 4)}…${t.slice(-2)}.env:3`);
    expect(text).toContain("e\\e[2Jx");
    expect(Object.keys(JSON.parse(runs[1]?.stdout ?? "{}").assignment).sort()).toEqual(
      [`${t.slice(0, 4)}…${t.slice(-2)}`, "e\u001b[2Jx"].sort(),
    );
  });

  test("a token as a branch name is masked in the range's unit (SARIF, summary) and in error messages", async () => {
    const r = await repo();
    const t = token();
    r.git("checkout", "-q", "-b", t);
    r.write("scripts/x.env", `${SEAT}not a line\n`);
    r.stage();
    r.commit("x");
    const sarif = kvgate(["check", "--range", `main..${t}`, "--unit", "range", "--format", "sarif"], { cwd: r.dir });
    expect(sarif.code).toBe(1);
    expect(JSON.parse(sarif.stdout).runs[0].properties.units).toEqual([`main..${t.slice(0, 4)}…${t.slice(-2)}`]);
    expect(sarif.stdout).not.toContain(t);
    const missing = token();
    const bad = kvgate(["check", "--commit", missing], { cwd: r.dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`unknown revision "${missing.slice(0, 4)}…${missing.slice(-2)}"`);
    expect(bad.stderr).not.toContain(missing);
  });
});
