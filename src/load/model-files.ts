// The model files a repository commits beside its fleet (docs/vllm-sizing.md#model-facts): every `config.json`
// (a model's Hugging Face config; matched to a service under `models/<org>/<name>/` or by its
// `_name_or_path`, or named with MODEL_CONFIG), every `model.safetensors.index.json` (the
// checkpoint's size) and every `tokenizer_config.json` (its model_max_length caps vLLM's maximum). They are kept as text: src/kv/model-source.ts reads them as vLLM does, so a
// malformed one becomes a finding at its file, never a crash here.
import { posix } from "node:path";
import type { FleetInput } from "./input.js";
import { parseEnv } from "../parse/env.js";
import { modelFileProblem } from "../parse/model-config-bounds.js";
import type { ModelFile } from "../model/types.js";

const MODEL_FILE = /(^|\/)(config\.json|model\.safetensors\.index\.json|tokenizer_config\.json)$/;

function isModelFile(path: string): boolean {
  return MODEL_FILE.test(path);
}

export const modelFiles: FleetInput = {
  kind: "model files",
  paths: ({ listing }) => listing.filter(isModelFile),
  // MODEL_CONFIG may name a config.json anywhere (the listing holds only models/): read what the env
  // files name, with the checkpoint index beside it. A path the snapshot lacks reads as absent, and
  // src/kv/model-source.ts reports it at the service.
  morePaths(files) {
    const out: string[] = [];
    for (const [path, d] of files) {
      if (!path.endsWith(".env") || d.text === null) continue;
      const named = posix.normalize((parseEnv(d.text, path).entries.get("MODEL_CONFIG")?.value ?? "").replace(/^\.\//, ""));
      if (named === "." || named.startsWith("..") || named.startsWith("/")) continue;
      out.push(
        named,
        posix.join(posix.dirname(named), "model.safetensors.index.json"),
        posix.join(posix.dirname(named), "tokenizer_config.json"),
      );
    }
    return out;
  },
  add(fleet, files) {
    const out: NonNullable<typeof fleet.modelFiles> = {};
    for (const [path, d] of files) {
      if (!isModelFile(path) || (d.text === null && d.problem === null)) continue;
      out[path] = d.text === null ? { text: null, problem: d.problem } : bounded(path, d.text);
    }
    fleet.modelFiles = out;
  },
};

/**
 * A model file held to the bounds of src/parse/model-config-bounds.ts before src/kv reads it. A
 * config.json past them keeps its text (a service still finds it by `_name_or_path`) with the problem,
 * which the seat reports at the file; malformed JSON is left to src/kv, which says where.
 */
function bounded(path: string, text: string): ModelFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { text, problem: null };
  }
  const isConfig = path.endsWith("config.json");
  const p = modelFileProblem(json, isConfig);
  if (p === null) return { text, problem: null };
  const problem = `${p.message}; commit the model's ${isConfig ? "config.json" : "safetensors index"} unchanged from the model repository`;
  return { text: isConfig ? text : null, problem };
}
