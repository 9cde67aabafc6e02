// Stages the hook benchmark's change in a fleet repo made by make-fleet-repo.mjs: 5 env files
// edited, 1 playbook added, 20 other files edited. Usage: node stage-change.mjs DIR
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

const [dir] = process.argv.slice(2);
const write = (p, text) => {
  mkdirSync(dirname(join(dir, p)), { recursive: true });
  writeFileSync(join(dir, p), text);
};
for (let i = 0; i < 5; i++) {
  const p = `scripts/s${i}.env`;
  write(
    p,
    readFileSync(join(dir, p), "utf8")
      .replace(/^MAX_MODEL_LEN=\d+$/m, "MAX_MODEL_LEN=12288")
      .replace(/^KV_CACHE_MEMORY_BYTES=\d+$/m, `KV_CACHE_MEMORY_BYTES=${2 * 2 ** 30}`),
  );
}
write(
  "playbooks/bench-rollout.yaml",
  [
    "- name: bench rollout",
    "  hosts: fv-ml1",
    "  tasks:",
    "    - name: s5 context",
    "      ansible.builtin.lineinfile:",
    "        path: /opt/fleet/scripts/s5.env",
    "        regexp: '^MAX_MODEL_LEN='",
    "        line: MAX_MODEL_LEN=8192",
    "",
  ].join("\n"),
);
for (let i = 0; i < 20; i++) {
  // Spread over the tree where it is big enough; a small repo (1,000 files) has src/mod0..9 only.
  const spread = `src/mod${i}/file${i * 100}.ts`;
  const p = existsSync(join(dir, spread)) ? spread : `src/mod0/file${i}.ts`;
  write(
    p,
    readFileSync(join(dir, p), "utf8") + `// edited for the hook benchmark ${i}\nexport const token${i} = process.env.TOKEN_${i};\n`,
  );
}
execFileSync("git", ["add", "-A"], { cwd: dir });
