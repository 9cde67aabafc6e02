// Issue 31's done-means end to end: a temp repository holding a copy of examples/kubernetes (a
// production-stack values file and a Deployment on an H100 pool, a time-sliced L4 pool), changed and
// checked by the built CLI. The correct set passes; a KV mistake, a TP/GPU-count mismatch, a
// time-sliced over-subscription and a plain-text pull secret are each refused at their line.
import { afterEach, describe, expect, test } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { makeRepo, type TempFolder, type TempRepo } from "../helpers/repo.js";
import { ROOT, kvgate, type JsonFinding } from "../helpers/cli.js";

const EXAMPLE = join(ROOT, "examples", "kubernetes");
const VOICES = "k8s/voices/deployment.yaml";
const CHAT = "k8s/chat/deployment.yaml";
const VALUES = "charts/vllm-stack/values.yaml";

const made: TempFolder[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}
const example = (path: string): string => readFileSync(join(EXAMPLE, path), "utf8");
const lineOf = (text: string, needle: string): number => text.split("\n").findIndex((l) => l.includes(needle)) + 1;

async function exampleRepo(): Promise<TempRepo> {
  const repo = await makeRepo();
  made.push(repo);
  for (const f of filesUnder(EXAMPLE)) repo.write(relative(EXAMPLE, f), readFileSync(f));
  repo.stage();
  repo.commit("the kubernetes fleet");
  return repo;
}

type Found = JsonFinding;
function staged(repo: TempRepo, extra: string[] = []): { code: number | null; verdict: string; findings: Found[]; stdout: string } {
  repo.stage();
  const run = kvgate(["check", "--staged", "--format", "json", ...extra], { cwd: repo.dir });
  expect(run.stderr).toBe("");
  return { code: run.code, stdout: run.stdout, ...(JSON.parse(run.stdout) as { verdict: string; findings: Found[] }) };
}
const errors = (f: Found[]) => f.filter((x) => x.severity === "error").map((x) => [x.rule, x.file, x.line, x.service]);

describe("the kubernetes example", () => {
  test("check --all passes: the seats are placed on their pools' cards, as Kubernetes would run them", async () => {
    const repo = await exampleRepo();
    const run = kvgate(["check", "--all", "--format", "json"], { cwd: repo.dir });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const x = kvgate(["explain", "--format", "json"], { cwd: repo.dir });
    const services = (JSON.parse(x.stdout) as { services: { name: string; host: string; gpus: number[]; deployed_by: unknown[] }[] })
      .services;
    expect(services.map((s) => [s.name, s.host, s.gpus])).toEqual([
      ["coder-0", "k8s:h100", [0]],
      ["coder-1", "k8s:h100", [1]],
      ["chat", "k8s:h100", [2, 3]],
      ["voices-0", "k8s:l4", [0]],
      ["voices-1", "k8s:l4", [0]],
    ]);
    expect(services.find((s) => s.name === "voices-1")?.deployed_by).toEqual([
      { file: VOICES, line: 4, kind: "Deployment", workload: "voices", replica: 1, replicas: 2, pool: "k8s:l4" },
    ]);
  });

  test("a KV mistake (a pin below one max-length request) is refused at the pin, and --fix writes the list item after it", async () => {
    const repo = await exampleRepo();
    repo.write(VOICES, example(VOICES).replace('"1610612736"', '"536870912"'));
    const r = staged(repo);
    expect(r.code).toBe(1);
    const pinLine = lineOf(example(VOICES), "--kv-cache-memory-bytes");
    expect(errors(r.findings)).toEqual([
      ["kv/covers-context", VOICES, pinLine, "voices-0"],
      ["kv/covers-context", VOICES, pinLine, "voices-1"],
    ]);
    const kv = r.findings.find((f) => f.rule === "kv/covers-context");
    expect(kv?.data.fix).toEqual({ file: VOICES, line: pinLine, key: "--kv-cache-memory-bytes", value: "1610612736" });
    const fixed = kvgate(["check", "--fix"], { cwd: repo.dir });
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(readFileSync(join(repo.dir, VOICES), "utf8")).toBe(example(VOICES));
  });

  test("a TP/GPU-count mismatch is refused at the GPU request, in the manifest's spelling", async () => {
    const repo = await exampleRepo();
    repo.write(CHAT, example(CHAT).replace("nvidia.com/gpu: 2", "nvidia.com/gpu: 1"));
    const r = staged(repo);
    expect(r.code).toBe(1);
    expect(errors(r.findings)).toEqual([["k8s/gpu-request", CHAT, lineOf(example(CHAT), "nvidia.com/gpu:"), "chat"]]);
    expect(r.findings.find((f) => f.rule === "k8s/gpu-request")?.message).toBe(
      "chat: --tensor-parallel-size 2 needs 2 GPUs per pod, but nvidia.com/gpu asks 1: vLLM cannot start its ranks; set nvidia.com/gpu: 2",
    );
  });

  test("the same mismatch in the chart's values: at requestGPU, and --fix writes requestGPU", async () => {
    const repo = await exampleRepo();
    const values = example(VALUES).replace("        maxModelLen: 32768", "        maxModelLen: 32768\n        tensorParallelSize: 2");
    repo.write(VALUES, values);
    const r = staged(repo);
    expect(errors(r.findings)).toEqual([["k8s/gpu-request", VALUES, lineOf(values, "requestGPU"), "coder-0"]]);
    expect(r.findings.find((f) => f.rule === "k8s/gpu-request")?.message).toContain(
      "tensorParallelSize 2 needs 2 GPUs per pod, but requestGPU asks 1",
    );
    const sarif = kvgate(["check", "--staged", "--format", "sarif"], { cwd: repo.dir });
    const results =
      (
        JSON.parse(sarif.stdout) as {
          runs: {
            results: {
              ruleId: string;
              locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[];
            }[];
          }[];
        }
      ).runs[0]?.results ?? [];
    expect(
      results
        .filter((x) => x.ruleId === "k8s/gpu-request")
        .map((x) => [x.locations[0]?.physicalLocation.artifactLocation.uri, x.locations[0]?.physicalLocation.region.startLine]),
    ).toEqual([[VALUES, lineOf(values, "requestGPU")]]);
    const fixed = kvgate(["check", "--fix"], { cwd: repo.dir });
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(readFileSync(join(repo.dir, VALUES), "utf8")).toBe(values.replace("requestGPU: 1", "requestGPU: 2"));
  });

  test("a time-sliced over-subscription: four voices on one L4 cannot each boot last", async () => {
    const repo = await exampleRepo();
    repo.write(VOICES, example(VOICES).replace("replicas: 2", "replicas: 4"));
    const r = staged(repo);
    expect(r.code).toBe(1);
    const util = lineOf(example(VOICES), "--gpu-memory-utilization");
    expect(errors(r.findings)).toEqual([0, 1, 2, 3].map((i) => ["kv/boot-check", VOICES, util, `voices-${i}`]));
    expect(r.findings[0]?.message).toContain("on k8s:l4 gpu 0, but its neighbours hold");
    const plan = kvgate(["plan", "--host", "k8s:l4"], { cwd: repo.dir });
    expect(plan.stdout).toContain(`change its pool (nodeSelector cloud.google.com/gke-nodepool: l4 at ${VOICES}:15)`);
  });

  test("a plain-text pull secret is refused at its manifest line; no output holds the token", async () => {
    const repo = await exampleRepo();
    const token = ["ghp", "a8Kz3Qm1Xv7Ln2Rt9Yp4Wc6Bd0Fh5Js8Ge3U"].join("_");
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    const config = b64(JSON.stringify({ auths: { "ghcr.io": { username: "bot", auth: b64(`bot:${token}`) } } }));
    repo.write(
      "k8s/chat/pull-secret.yaml",
      [
        "apiVersion: v1",
        "kind: Secret",
        "type: kubernetes.io/dockerconfigjson",
        "metadata: { name: ghcr, namespace: llm }",
        "data:",
        `  .dockerconfigjson: ${config}`,
        "",
      ].join("\n"),
    );
    const r = staged(repo);
    expect(r.code).toBe(1);
    expect(errors(r.findings)).toEqual([["secret/github-token", "k8s/chat/pull-secret.yaml", 6, null]]);
    for (const format of ["json", "sarif", "text", "github"]) {
      const out = kvgate(["check", "--staged", "--format", format], { cwd: repo.dir });
      expect(out.stdout + out.stderr).not.toContain(token.slice(4, 16));
    }
  });

  test("new issues only: a change that does not touch the broken seat passes over it", async () => {
    const repo = await exampleRepo();
    repo.write(CHAT, example(CHAT).replace("nvidia.com/gpu: 2", "nvidia.com/gpu: 1"));
    repo.stage();
    repo.commit("broken", { noVerify: true });
    repo.write(VOICES, example(VOICES).replace('"0.4"', '"0.38"'));
    const r = staged(repo);
    expect([r.code, r.findings.filter((f) => f.status === "open" && f.severity !== "notice")]).toEqual([0, []]);
  });
});
