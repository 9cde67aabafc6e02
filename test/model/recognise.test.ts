// Engine recognition without ENGINE (contract §12), by the traits of rules/engines.yaml.
import { describe, expect, test } from "vitest";
import { parseEnv } from "../../src/parse/env.js";
import { loadPack } from "../../src/rules/load.js";
import { imageName, recogniseFrom } from "../../src/model/recognise.js";
import { nearestName, editDistance } from "../../src/units/nearest.js";

const engines = loadPack().engines.engines;
const rec = (text: string) => recogniseFrom(engines, parseEnv(text, "scripts/x.env"));

describe("recognising an engine from what a service runs", () => {
  test.each([
    ["docker.io/vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.11.0"],
    ["ghcr.io:443/vllm/vllm-openai@sha256:0123abcdef", "vllm/vllm-openai"],
    ["localhost/library/redis:7", "redis:7"],
    ["vllm/vllm-openai", "vllm/vllm-openai"],
  ])("image %s is %s", (image, name) => expect(imageName(image)).toBe(name));

  test.each([
    ["IMAGE=vllm/vllm-openai:v0.11.0\n", "vllm", "image", 1],
    ["X=1\nCONTAINER_IMAGE=docker.io/vllm/vllm-openai:latest\n", "vllm", "image", 2],
    ['CMD="exec /opt/venv/bin/python3 -m vllm.entrypoints.openai.api_server --port 8000"\n', "vllm", "command", 1],
    ['SERVE_ARGS="--gpu-headroom-mib 96"\n', "radiance", "flag", 1],
    ['ARGS="serve Qwen/Qwen3-8B --port 8000"\n', "vllm", "command", 1],
  ])("%j → %s by %s at line %i", (text, engine, by, line) => {
    expect(rec(text)).toMatchObject({ engine, by, origin: { line } });
  });

  test("the image beats a flag of another engine; two engines by one kind of evidence name none", () => {
    expect(rec('IMAGE=vllm/vllm-openai:v1\nARGS="--gpu-headroom-mib 96"\n')).toMatchObject({ engine: "vllm", by: "image" });
    expect(rec('ARGS="--kv-cache-memory-bytes 1 --host-pool-mib 2"\n')).toMatchObject({
      engine: null,
      by: "none",
      candidates: ["vllm", "radiance"],
    });
  });

  test("what names nothing: another image, a shared flag, an unsplittable command", () => {
    for (const text of [
      "IMAGE=ghcr.io/huggingface/text-generation-inference:2\n",
      'ARGS="--max-model-len 4096"\n',
      'CMD="vllm serve \'x"\n',
      "IMAGE=\n",
    ]) {
      expect(rec(text)).toEqual({ engine: null, by: "none", evidence: null, origin: null });
    }
  });
});

describe("the nearest engine name", () => {
  test("vlm → vllm, radiant → radiance, by edit distance", () => {
    expect([editDistance("vlm", "vllm"), editDistance("vlm", "radiance")]).toEqual([1, 8]);
    expect(nearestName("vlm", ["vllm", "radiance"])).toBe("vllm");
    expect(nearestName("RADIANT", ["vllm", "radiance"])).toBe("radiance");
    expect(nearestName("x", [])).toBeUndefined();
  });
});
