// Issue 14 item 5: `kvgate <command> --help` prints that command's usage and flags, not the global text.
import { describe, expect, test } from "vitest";
import { tmpdir } from "node:os";
import { kvgate } from "../helpers/cli.js";

const FLAGS: Record<string, string[]> = {
  check: [
    "--staged",
    "--commit REV",
    "--range A..B",
    "--all",
    "--unit",
    "--repo DIR",
    "--config FILE",
    "--format",
    "--output FILE",
    "--fail-on",
    "--baseline FILE",
    "--fix",
  ],
  audit: ["--range A..B", "--shard I/N", "--repo DIR", "--config FILE", "--format", "--output FILE"],
  explain: ["SERVICE", "--repo DIR", "--config FILE", "--format"],
  plan: ["--host H", "--raise-contexts", "--repo DIR", "--config FILE", "--format"],
  init: ["--repo DIR"],
  hook: ["prepare-commit-msg FILE"],
  schema: [],
  rules: ["--format"],
  usage: [
    "--litellm FILE",
    "--litellm-db",
    "--since",
    "--until",
    "--min-requests N",
    "--min-span D",
    "--metrics FILE",
    "--connect-timeout D",
    "--statement-timeout D",
    "--format",
    "--repo DIR",
    "--config FILE",
  ],
  observe: ["--metrics FILE", "--host H", "--since", "--until", "--format", "--output FILE", "--write FILE", "--repo DIR", "--config FILE"],
};

describe("per-command help", () => {
  const global = kvgate(["--help"], { cwd: tmpdir() }).stdout;

  test.each(Object.entries(FLAGS))("kvgate %s --help: its own usage line and every flag it takes, exit 0", (cmd, flags) => {
    const run = kvgate([cmd, "--help"], { cwd: tmpdir() });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout.split("\n")[0]).toMatch(new RegExp(`^usage: kvgate ${cmd}\\b`));
    expect(run.stdout).not.toBe(global);
    for (const f of [...flags, "-h, --help"]) expect(run.stdout).toContain(f);
    expect(kvgate(["help", cmd], { cwd: tmpdir() }).stdout).toBe(run.stdout);
  });

  test("-h anywhere after the command is the command's help; an unknown command's help is a usage error", () => {
    expect(kvgate(["check", "--all", "-h"], { cwd: tmpdir() }).stdout).toBe(kvgate(["check", "--help"], { cwd: tmpdir() }).stdout);
    const bad = kvgate(["help", "nope"], { cwd: tmpdir() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown command "nope"');
  });

  test("the global help names every command and points at the per-command help", () => {
    for (const cmd of Object.keys(FLAGS)) expect(global).toMatch(new RegExp(`^  ${cmd} `, "m"));
    expect(global).toContain("`kvgate <command> --help` for a command's flags");
  });
});
