// engine/unknown: the sizing rules run only for an engine kvgate knows, so a seat whose engine is a
// typo (ENGINE=vlm) or cannot be told from what it runs would be checked by nothing and pass. A service
// that holds a GPU or sets a sizing setting must name an engine the rules pack knows, or one the user
// lists under engines.generic (run knowingly with the generic checks only).
import { isGenericEngine, knownEngines, needsEngine } from "../model/engine.js";
import { nearestName } from "../units/nearest.js";
import { defineCheck, type Report } from "./define.js";

const messages = {
  typo: (d: { service: string; engine: string; nearest: string; known: string; why: string }) =>
    `${d.service}: ENGINE=${d.engine} is not an engine kvgate knows ` +
    `(${d.known}), and ${d.why}, so no sizing rule would check it; did you mean ` +
    `${d.nearest}? set ENGINE=${d.nearest}, or list ${d.engine} under ` +
    `engines.generic in kvgate.yaml to run it with the generic checks only`,
  unrecognised: (d: { service: string; known: string; why: string; example: string }) =>
    `${d.service}: no ENGINE, and neither its image, its command nor its flags name an engine ` +
    `kvgate knows (${d.known}), while ${d.why}; set ENGINE=<${d.example}> (or IMAGE=<the image ` +
    `it runs>), or set ENGINE=<name> and list the name under engines.generic in kvgate.yaml`,
  ambiguous: (d: { service: string; candidates: string; evidence: string }) =>
    `${d.service}: no ENGINE, and what it runs names more than one engine (${d.candidates}: ${d.evidence}); set ENGINE= to the one it runs`,
};

type R = Report<typeof messages>;

export const engineUnknown = defineCheck({
  id: "engine/unknown",
  severity: "error",
  description:
    "A service that holds a GPU or sets a sizing setting runs an engine kvgate cannot " +
    "name: ENGINE is a name rules/engines.yaml does not know (the message suggests the nearest), " +
    "or ENGINE is not set and the image, command and flags name no known engine. " +
    "engines.generic in kvgate.yaml lists engines run knowingly with the generic checks only.",
  messages,
  run(ctx) {
    const known = knownEngines(ctx.pack);
    return ctx.after.services.flatMap((s): R[] => {
      if (s.engine !== null && (known.includes(s.engine) || isGenericEngine(ctx.policy, s.engine))) return [];
      // A GPU user kvgate.yaml declares under fleet.tenants is known: its memory is the tenant's vram.
      if (s.engine === null && ctx.after.tenants.some((t) => t.name === s.name)) return [];
      const need = needsEngine(s, ctx.pack);
      if (!need) return [];
      const base = { service: s.name, file: s.file };
      const rec = s.recognition;
      if (s.engine !== null) {
        const at = s.origins.engine ?? need.origin;
        const nearest = nearestName(s.engine, known) ?? known[0];
        return [
          {
            ...base,
            message: "typo",
            line: at.line,
            file: at.file,
            data: { service: s.name, engine: s.engine, nearest, known: known.join(", "), why: need.what, recognised_by: "ENGINE" },
          },
        ];
      }
      if (rec?.candidates && rec.candidates.length > 1) {
        const at = rec.origin ?? need.origin;
        return [
          {
            ...base,
            message: "ambiguous",
            line: at.line,
            file: at.file,
            data: { service: s.name, candidates: rec.candidates.join(", "), evidence: rec.evidence ?? "", recognised_by: "none" },
          },
        ];
      }
      return [
        {
          ...base,
          message: "unrecognised",
          line: need.origin.line,
          file: need.origin.file,
          data: { service: s.name, known: known.join(", "), why: need.what, example: known.join("|"), recognised_by: "none" },
        },
      ];
    });
  },
});
