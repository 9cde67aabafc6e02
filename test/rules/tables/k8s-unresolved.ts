import { k8sUnresolved } from "../../../src/checks/k8s-unresolved.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { deployment } from "../../kubernetes/manifests.js";
import { lines } from "../../kubernetes/helpers.js";

const F = "k8s/chat.yaml";
const CM = lines("apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: chat-settings", "data:", '  CTX: "8192"');
/** The Deployment with `$(CTX)` for its context, and its variables from `envFrom`. */
const withVar = (envFrom: string[]) =>
  deployment({ args: ["Qwen/Qwen3-8B", "--max-model-len", '"$(CTX)"', "--kv-cache-memory-bytes", '"8053063680"'] }).replace(
    "          resources:",
    [...envFrom, "          resources:"].join("\n"),
  );

export default ruleTester(k8sUnresolved, {
  valid: [
    {
      name: "$(CTX) from a ConfigMap committed under the globs resolves",
      files: { [F]: withVar(["          envFrom:", "            - configMapRef: { name: chat-settings }"]), "k8s/cm.yaml": CM },
    },
  ],
  invalid: [
    {
      name: "$(CTX) from a Secret: the flag is skipped, at its line",
      files: {
        [F]: withVar([
          "          envFrom:",
          "            - secretRef: { name: chat-secret }",
          "          env:",
          "            - name: CTX",
          "              valueFrom: { secretKeyRef: { name: s, key: ctx } }",
        ]),
      },
      findings: [
        {
          file: F,
          line: 17,
          severity: "notice",
          message:
            "--max-model-len of chat takes $(CTX), which comes from outside the repository (a Secret, the downward API, a ConfigMap not committed); kvgate skips it",
        },
      ],
    },
    {
      name: "an envFrom ConfigMap not in the repository",
      files: { [F]: withVar(["          envFrom:", "            - configMapRef: { name: chat-settings }"]) },
      findings: [
        {
          line: 21,
          message:
            "envFrom ConfigMap chat-settings of chat is not in the repository; the variables it sets are unknown to kvgate (commit it under the kubernetes globs)",
        },
      ],
    },
  ],
});
