// k8s/drift: two files deploy the same workload (a production-stack values file and the Deployment
// rendered from it, committed beside it for GitOps; or a manifest copied between folders) and set one
// of its settings differently. kvgate checks the later file in path order (as `kubectl apply -f` of
// the folder would leave it); the other one says something that does not run.
import { defineCheck, type Report } from "./define.js";
import { deploysInUnit } from "../model/kubernetes.js";
import { buildService } from "../model/build.js";
import { deployedEnv } from "../playbook/overlay.js";
import type { K8sDeploy, Origin, Service } from "../model/types.js";
import { valueText } from "../units/text.js";

type Data = {
  workload: string;
  setting: string;
  file: string;
  spelled: string;
  value: string;
  other_file: string;
  other_line: number;
  other_spelled: string;
  other_value: string;
};

const messages = {
  drift: (d: Data) =>
    `${d.workload}: ${d.file} sets ${d.spelled} ${d.value}, but ${d.other_file}:${d.other_line} ` +
    `sets ${d.other_spelled} ${d.other_value} for the same workload (kvgate checks ${d.other_file}, ` +
    `the later path); make the two files agree, or delete the one that does not deploy`,
};

interface Said {
  value: string;
  origin: Origin | null;
}

/** How a message names a setting: its spelling in the file (`maxModelLen`, `--max-model-len`); the served model as such. */
function spelledOf(o: Origin | null, setting: string): string {
  if (!o) return setting;
  return o.name.endsWith(" serve") ? "the model" : o.name;
}

/** What a deploy says: the model, TP, every typed setting, GPUs per replica and replicas. */
function saysOf(d: K8sDeploy, s: Service): Map<string, Said> {
  const out = new Map<string, Said>();
  if (s.model) out.set("model", { value: s.model, origin: s.origins.model ?? null });
  out.set("tp", { value: String(s.tp), origin: s.origins.tp ?? null });
  for (const [name, v] of Object.entries(s.settings)) out.set(name, { value: valueText(v.value), origin: v.origin });
  if (d.gpu)
    out.set("gpus", {
      value: String(d.gpusPerReplica),
      origin: { file: d.gpu.file, line: d.gpu.line, source: "playbook", name: d.gpu.key },
    });
  out.set("replicas", {
    value: String(d.replicas.count),
    origin: { file: d.replicas.file, line: d.replicas.line, source: "playbook", name: d.replicas.via },
  });
  return out;
}

export const k8sDrift = defineCheck({
  id: "k8s/drift",
  severity: "warning",
  description:
    "Two Kubernetes files (a chart's values and a manifest) deploy the same workload with different settings: only the later path's is what kvgate checks.",
  messages,
  run(ctx) {
    const touched = new Set(deploysInUnit(ctx).map((d) => `${d.namespace ?? ""}/${d.workload}`));
    const all = (ctx.after.kubernetes?.reads ?? []).flatMap((r) => r.deploys);
    const out: Report<typeof messages>[] = [];
    for (const id of touched) {
      const same = all.filter((d) => `${d.namespace ?? ""}/${d.workload}` === id);
      const files = [...new Set(same.map((d) => d.kubernetes))];
      if (files.length < 2) continue;
      const runs = same[same.length - 1] as K8sDeploy;
      const theirs = saysOf(runs, buildService(deployedEnv(runs, null), ctx.pack, ctx.policy, runs.service));
      for (const d of same.filter((x) => x.kubernetes !== runs.kubernetes)) {
        const mine = saysOf(d, buildService(deployedEnv(d, null), ctx.pack, ctx.policy, d.service));
        for (const [setting, m] of mine) {
          const t = theirs.get(setting);
          if (!t || t.value === m.value) continue;
          out.push({
            message: "drift",
            data: {
              workload: d.workload,
              setting,
              file: d.kubernetes,
              spelled: spelledOf(m.origin, setting),
              value: m.value,
              other_file: runs.kubernetes,
              other_line: t.origin?.line ?? runs.line,
              other_spelled: spelledOf(t.origin, setting),
              other_value: t.value,
            },
            file: m.origin?.file ?? d.file,
            line: m.origin?.line ?? d.line,
            service: d.workload,
            key: `${d.workload}/${setting}`,
          });
        }
      }
    }
    return out;
  },
});
