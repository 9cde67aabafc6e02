// The model files a repository commits beside its fleet (contract section 13): every `config.json`
// (a model's Hugging Face config; matched to a service under `models/<org>/<name>/` or by its
// `_name_or_path`, or named with MODEL_CONFIG) and every `model.safetensors.index.json` (the
// checkpoint's size). They are kept as text: src/kv/model-source.ts reads them as vLLM does, so a
// malformed one becomes a finding at its file, never a crash here.
import type { FleetInput } from "./input.js";

const MODEL_FILE = /(^|\/)(config\.json|model\.safetensors\.index\.json)$/;

export function isModelFile(path: string): boolean {
  return MODEL_FILE.test(path);
}

export const modelFiles: FleetInput = {
  kind: "model files",
  paths: ({ listing }) => listing.filter(isModelFile),
  add(fleet, files) {
    const out: NonNullable<typeof fleet.modelFiles> = {};
    for (const [path, d] of files) {
      if (!isModelFile(path) || (d.text === null && d.problem === null)) continue;
      out[path] = { text: d.text, problem: d.problem };
    }
    fleet.modelFiles = out;
  },
};
