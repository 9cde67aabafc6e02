import { expect } from "vitest";
import type { FleetState, Service } from "../../../src/model/types.js";
import { playbookDrift } from "../../../src/checks/playbook-drift.js";
import { exact, ruleTester } from "../../helpers/rule-tester.js";
import { PB, lines, playbookCase, read, service } from "../../playbook/helpers.js";

const voices = service(
  "scripts/voices.env",
  lines(
    "ENGINE=vllm",
    "GPU=0",
    "MAX_MODEL_LEN=40960",
    "KV_CACHE_MEMORY_BYTES=6979321856",
    'SERVE_ARGS="--max-num-seqs 8"',
    "HF_TOKEN=vault:albok/hf-token",
  ),
);
const opts = { services: new Map([["voices", "scripts/voices.env"]]) };
const play = (...tasks: string[]) => lines("- hosts: fv-ml1", "  tasks:", ...tasks);
const li = (kv: string) => `    - lineinfile: { path: /opt/fleet/scripts/voices.env, line: '${kv}' }`;
const deploys = (name: string, pb: string, extra: { changed?: string[]; kind?: "all" } = {}) =>
  playbookCase(name, { services: [voices], playbooks: [read({ [PB]: pb }, PB, opts)], ...extra });
const drift = (messageId: string, line: number, key: string, playbook_value: string | null, committed_value: string | null) => ({
  messageId,
  line,
  data: { key, playbook_value, committed_value },
});
const container = (command: string) =>
  lines("- hosts: fv-ml1", "  tasks:", "    - docker_container:", "        name: vllm-voices", `        command: ${command}`);
const voicesAt = (len: string, extra = "") =>
  service(
    "scripts/voices.env",
    lines("ENGINE=vllm", "GPU=0", `MAX_MODEL_LEN=${len}`, "KV_CACHE_MEMORY_BYTES=6979321856", `SERVE_ARGS="--max-num-seqs 8"${extra}`),
  );
/** An env-only change (the playbook is committed and not in the unit): before and after fleets. */
const envOnly = (name: string, pb: string, before: Service, after: Service) => {
  const c = playbookCase(name, { services: [after], playbooks: [read({ [PB]: pb }, PB, opts)], changed: ["scripts/voices.env"] });
  return { ...c, before: { ...(c.fleet as FleetState), services: [before], playbooks: [read({ [PB]: pb }, PB, opts)] } };
};
const included = read(
  {
    [PB]: play("    - import_tasks: t.yml"),
    "playbooks/t.yml": lines(`- lineinfile: { path: scripts/voices.env, line: MAX_MODEL_LEN=8192 }`),
  },
  PB,
  opts,
);

export default ruleTester(playbookDrift, {
  valid: [
    playbookCase("a seat a role's template writes whole, with no env file committed: it runs as rendered, nothing drifts", {
      services: [voices],
      playbooks: [
        read({
          [PB]: lines("- hosts: fv-ml1", "  roles: [vllm]"),
          "playbooks/roles/vllm/tasks/main.yml": lines("- template: { src: vllm.env.j2, dest: /etc/vllm/coder.env }"),
          "playbooks/roles/vllm/templates/vllm.env.j2": lines("IMAGE=vllm/vllm-openai:v0.8.5", "MAX_MODEL_LEN=8192"),
        }),
      ],
    }),
    deploys("the same values: no drift", play(li("MAX_MODEL_LEN=40960"), li("KV_CACHE_MEMORY_BYTES=6979321856"), li("GPU= 0"))),
    deploys(
      "the same setting as an env key on one side and a flag on the other",
      container("[--max-model-len, '40960', --max-num-seqs, '8']"),
    ),
    // 6,979,321,856 B = 6.5 GiB: the flag's `6656M` (×1024) and the env key's `6.5GiB` say the same.
    deploys(
      "the same quantity in another unit: a flag's 6656M, an env key's 6.5GiB",
      container("[--kv-cache-memory-bytes, 6656M, --max-num-seqs, '8']"),
    ),
    deploys("the same quantity as an env key's unit: 6.5GiB", play(li("KV_CACHE_MEMORY_BYTES=6.5GiB"))),
    deploys("a playbook the unit does not touch", play(li("MAX_MODEL_LEN=32768")), { changed: ["scripts/voices.env"] }),
    envOnly(
      "an env-only change of a key the playbook does not deploy",
      play(li("MAX_MODEL_LEN=32768")),
      voicesAt("32768"),
      voicesAt("32768", " --enforce-eager"),
    ),
    envOnly(
      "an env-only change where the key already drifted before: not this change's",
      play(li("MAX_MODEL_LEN=8192")),
      voicesAt("32768"),
      voicesAt("40960"),
    ),
  ],
  invalid: [
    {
      // 6,656 MB (×1000, lower case) is not 6,656 MiB: a different quantity, drift.
      ...deploys("a unit that reads another quantity: 6656m (×1000)", container("[--kv-cache-memory-bytes, 6656m, --max-num-seqs, '8']")),
      findings: [drift("differs", 5, "--kv-cache-memory-bytes", "6656m", "6979321856")],
    },
    {
      ...deploys("a value that differs from the committed env file, at the playbook's line", play(li("MAX_MODEL_LEN=32768"), li("GPU=0"))),
      findings: [drift("differs", 3, "MAX_MODEL_LEN", "32768", "40960")],
    },
    {
      ...deploys(
        "a removed key, and a sizing key the env file does not set",
        play(
          "    - lineinfile: { path: scripts/voices.env, regexp: ^KV_CACHE_MEMORY_BYTES=, state: absent }",
          li("TP=2"),
          li("HF_HOME=/models"),
        ),
      ),
      findings: [drift("removed", 3, "KV_CACHE_MEMORY_BYTES", null, "6979321856"), drift("added", 4, "TP", "2", null)],
    },
    {
      ...deploys("a container command that drops a flag and gives a setting as a flag", container("[--max-model-len, '32768']")),
      findings: [drift("removed", 5, "--max-num-seqs", null, "8"), drift("differs", 5, "--max-model-len", "32768", "40960")],
    },
    {
      ...deploys("a secret-looking key: named, its values never shown", play(li("HF_TOKEN=hf_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))),
      findings: [
        {
          messageId: "differs",
          data: exact({ playbook: PB, service: "voices", env_file: "scripts/voices.env", key: "HF_TOKEN" }),
          message: expect.not.stringContaining("hf_a"),
        },
      ],
    },
    {
      ...playbookCase("a deploy of a service with no committed env file", {
        services: [voices],
        playbooks: [read({ [PB]: play("    - lineinfile: { path: scripts/ghost.env, line: GPU=1 }") })],
      }),
      findings: [{ messageId: "no-env", line: 3, service: "ghost" }],
    },
    {
      // The playbook deployed 32,768 like the env file; the env file moves to 40,960 alone.
      ...envOnly(
        "an env-only change the committed playbook now contradicts, at the env file's line",
        play(li("MAX_MODEL_LEN=32768")),
        voicesAt("32768"),
        voicesAt("40960"),
      ),
      findings: [
        {
          messageId: "env-moved",
          file: "scripts/voices.env",
          line: 3,
          data: { key: "MAX_MODEL_LEN", playbook_value: "32768", committed_value: "40960", playbook_line: 3 },
          message:
            "scripts/voices.env now sets MAX_MODEL_LEN=40960, but playbooks/p.yaml (not in this change) still deploys 32768 to voices: change playbooks/p.yaml in the same commit, or keep the value it deploys",
        },
      ],
    },
    {
      ...deploys("every playbook under --all", play(li("MAX_MODEL_LEN=32768")), { changed: [], kind: "all" }),
      findings: [{ messageId: "differs" }],
    },
    {
      ...playbookCase("a changed included file makes its playbook part of the unit", {
        services: [voices],
        playbooks: [included],
        changed: ["playbooks/t.yml"],
      }),
      findings: [{ file: "playbooks/t.yml", line: 1, data: { playbook_value: "8192" } }],
    },
  ],
});
