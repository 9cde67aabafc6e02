// k8s/parse: a Kubernetes manifest or values file the change touches is one kubectl or helm would
// refuse (a YAML error, a key given twice, a fractional GPU, a GPU requested without a limit, a
// required chart value missing), or one past kvgate's limits (size, documents, nesting, aliases).
// What it deploys is not sized, so this is an error.
import { defineCheck, type Report } from "./define.js";
import { kubernetesInUnit } from "../model/kubernetes.js";

const messages = {
  parse: (d: { problem: string }) => `${d.problem}; kvgate cannot size what it deploys until it parses`,
};

export const k8sParse = defineCheck({
  id: "k8s/parse",
  severity: "error",
  description:
    "A Kubernetes manifest or Helm values file is not one kubectl or helm would apply (YAML " +
    "error, fractional GPU, missing required value), or is past kvgate's reading limits.",
  messages,
  run(ctx) {
    const out: Report<typeof messages>[] = [];
    for (const r of kubernetesInUnit(ctx))
      for (const p of r.problems.filter((x) => x.kind === "parse"))
        out.push({
          message: "parse",
          data: { problem: p.message, manifest: r.path },
          file: p.file,
          line: p.line,
          service: p.service ?? null,
          key: p.message,
        });
    return out;
  },
});
