// Which command lines are vLLM's server itself (it then reads its flags, never kvgate's env keys).
import { describe, expect, test } from "vitest";
import { runsVllm, VLLM_IMAGE } from "../../src/playbook/engine-command.js";

describe("runsVllm", () => {
  test.each([
    [["vllm", "serve", "Qwen/Qwen3-8B"], true],
    [["/usr/local/bin/vllm", "serve", "--model", "m"], true],
    [["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m"], true],
    [["python3.12", "-m", "vllm.entrypoints.api_server"], true],
    [["/opt/fleet/bin/serve-chat"], false],
    [["bash", "-c", "vllm serve m"], false],
    [["python3", "serve.py"], false],
    [["vllm", "bench"], false],
    [[], false],
  ])("%j → %s", (words, want) => expect(runsVllm(words)).toBe(want));

  test("the image vLLM publishes, by tag or digest, and not a look-alike", () => {
    expect(["vllm/vllm-openai:v0.10.2", "docker.io/vllm/vllm-openai@sha256:ab", "vllm/vllm-openai"].map((i) => VLLM_IMAGE.test(i))).toEqual(
      [true, true, true],
    );
    expect(["myorg/vllm-openai:v1", "vllm/vllm-openai-rocm:v1"].map((i) => VLLM_IMAGE.test(i))).toEqual([false, false]);
  });
});
