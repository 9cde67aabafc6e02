// An error message is shown text too: it may quote a revision the user typed (`--commit <token>`),
// a file name or a line of a file. It goes through the same masker as every finding (detectors,
// key bodies, control characters); when the rules pack itself cannot load, the shape-based masking
// and the escaping still apply.
import { loadPack } from "../rules/load.js";
import { loadPolicy } from "../config/load.js";
import { createMasker } from "../secrets/mask.js";
import { escapeControls, maskKeyBodies } from "../secrets/shown.js";

let masker: ((s: string) => string) | null = null;

export function shownError(s: string): string {
  if (!masker) {
    try {
      const pack = loadPack();
      const m = createMasker(pack.detectors(), loadPolicy(null, "kvgate.yaml", pack));
      masker = (t) => m.text(t);
    } catch {
      masker = (t) => escapeControls(maskKeyBodies(t));
    }
  }
  // One line each: a newline inside a message would let it print a line of its own.
  return s
    .split("\n")
    .map((l) => escapeControls(masker?.(l) ?? l))
    .join("\n");
}
