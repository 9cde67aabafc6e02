// Whether a command line is vLLM's server itself (`vllm serve …`, `python -m vllm.entrypoints.openai.api_server
// …`), not a script of the operator's: such a process reads its settings from that line and VLLM_*
// variables only (docs/deploys.md#engine-command). Compose and systemd units both mark their deploy so.
import { posix } from "node:path";

/** vLLM's OpenAI image, whose entrypoint is its server (`vllm serve`): words after the image are its arguments. */
export const VLLM_IMAGE = /^(docker\.io\/)?vllm\/vllm-openai(:|@|$)/;

export function runsVllm(words: readonly string[]): boolean {
  const [first, second] = words.map((w) => posix.basename(w));
  if (first === "vllm" && second === "serve") return true;
  return /^python[0-9.]*$/.test(first ?? "") && second === "-m" && /^vllm\.entrypoints\./.test(words[2] ?? "");
}
