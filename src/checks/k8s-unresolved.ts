// k8s/unresolved: a Kubernetes value kvgate cannot read from the repository (a `$(VAR)` from a Secret
// or the downward API, an envFrom ConfigMap not committed, a KServe runtime not in the repository, a
// chart entry on Ray). The setting is skipped; the notice says which.
import { defineCheck, type Report } from "./define.js";
import { kubernetesInUnit } from "../model/kubernetes.js";

const messages = {
  unresolved: (d: { problem: string }) => d.problem,
};

export const k8sUnresolved = defineCheck({
  id: "k8s/unresolved",
  severity: "notice",
  description:
    "A Kubernetes value kvgate cannot read from the repository (a Secret's variable, a ConfigMap or runtime not committed); that setting is skipped.",
  messages,
  run(ctx) {
    const out: Report<typeof messages>[] = [];
    for (const r of kubernetesInUnit(ctx))
      for (const p of r.problems.filter((x) => x.kind === "unresolved"))
        out.push({
          message: "unresolved",
          data: { problem: p.message, manifest: r.path, ...(p.key ? { key: p.key } : {}) },
          file: p.file,
          line: p.line,
          service: p.service ?? null,
          key: p.message,
        });
    return out;
  },
});
