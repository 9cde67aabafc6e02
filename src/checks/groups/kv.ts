// The kv checks (contract sections 4 and 5): KV sizing of vLLM seats, the shared card, the card fit.
// Each lives in its own file under src/checks/ and is listed here in id order.
import type { Check, Messages, RuleMeta } from "../define.js";
import { engineUnknownModel } from "../engine-unknown-model.js";
import { genOutputCap } from "../gen-output-cap.js";
import { gpuFits } from "../gpu-fits.js";
import { kvBootCheck } from "../kv-boot-check.js";
import { kvContextMax } from "../kv-context-max.js";
import { kvCoversContext } from "../kv-covers-context.js";
import { kvException } from "../kv-exception.js";
import { kvLongContextOverride } from "../kv-long-context-override.js";
import { kvOversized } from "../kv-oversized.js";
import { kvUnpinnedSharedCard } from "../kv-unpinned-shared-card.js";
import { kvYarn } from "../kv-yarn.js";

// Report<M> is invariant in M (keyof M), so a Check<M> needs widening to sit in a Check[] list.
const widen = <M extends Messages>(c: Check<M>): Check => c as unknown as Check;

export const checks: Check[] = [
  widen(engineUnknownModel),
  widen(genOutputCap),
  widen(gpuFits),
  widen(kvBootCheck),
  widen(kvContextMax),
  widen(kvCoversContext),
  widen(kvException),
  widen(kvLongContextOverride),
  widen(kvOversized),
  widen(kvUnpinnedSharedCard),
  widen(kvYarn),
];
/** Rules that are reported by a command rather than by a check's run (none in this group). */
export const rules: RuleMeta[] = [];
