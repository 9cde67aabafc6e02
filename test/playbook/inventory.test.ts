// Ansible inventories read from the repository: INI and YAML, groups and children, host ranges, the
// variables they give (with their lines), `hosts:` patterns, and malformed files as problems at their line.
import { describe, expect, test } from "vitest";
import { groupsOf, readInventory, selectHosts } from "../../src/playbook/inventory.js";
import { placeOf } from "../../src/playbook/vars.js";
import { lines } from "./helpers.js";

const INI = lines(
  "# the fleet", //                                  1
  "[gpu]", //                                        2
  "gpu-a ansible_host=10.0.0.11 vllm_ctx=32768", //  3
  "gpu-[b:c]", //                                    4
  "", //                                             5
  "[cpu]", //                                        6
  "web[01:02]", //                                   7
  "", //                                             8
  "[prod:children]", //                              9
  "gpu", //                                          10
  "", //                                             11
  "[gpu:vars]", //                                   12
  "vllm_image = vllm/vllm-openai:v0.8.5", //         13
);

describe("INI", () => {
  const inv = readInventory([{ path: "inventory/hosts", text: INI }]);

  test("hosts, ranges, groups and children", () => {
    expect(inv.problems).toEqual([]);
    expect([...inv.hosts.keys()]).toEqual(["gpu-a", "gpu-b", "gpu-c", "web01", "web02"]);
    expect(selectHosts(inv, ["prod"])).toEqual(["gpu-a", "gpu-b", "gpu-c"]);
    expect(selectHosts(inv, ["all:!cpu"])).toEqual(["gpu-a", "gpu-b", "gpu-c"]);
    expect(selectHosts(inv, ["gpu:&prod:!gpu-b"])).toEqual(["gpu-a", "gpu-c"]);
    expect(selectHosts(inv, ["web*", "gpu-a"])).toEqual(["gpu-a", "web01", "web02"]);
    expect(selectHosts(inv, ["nope"])).toEqual([]);
    expect(groupsOf(inv, "gpu-a")).toEqual(["prod", "gpu"]);
  });

  test("a host line's vars are typed and placed at the line; [group:vars] are text", () => {
    const a = inv.hosts.get("gpu-a");
    expect(a?.vars).toEqual({ ansible_host: "10.0.0.11", vllm_ctx: 32768 });
    expect(placeOf(a?.vars, "vllm_ctx")).toEqual({ file: "inventory/hosts", line: 3, name: "vllm_ctx", yaml: false });
    expect(inv.groups.get("gpu")?.vars).toEqual({ vllm_image: "vllm/vllm-openai:v0.8.5" });
    expect(placeOf(inv.groups.get("gpu")?.vars, "vllm_image")?.line).toBe(13);
  });

  test.each([
    ["a section header that is not closed", lines("[gpu", "a"), 1, "is not a section header"],
    ["a section of an unknown kind", lines("[gpu:hosts]"), 1, "is not a section header"],
    ["a host var that is not key=value", lines("[gpu]", "gpu-a vllm_ctx"), 2, "is not key=value"],
    ["a :vars line that is not key=value", lines("[gpu:vars]", "just words"), 2, "is not key=value"],
    ["an unclosed quote", lines("[gpu]", "gpu-a x='1"), 2, "cannot be split into words"],
    ["a bad range", lines("[gpu]", "gpu[1-3]"), 2, "is not [start:end]"],
  ])("%s is a parse problem at its line", (_name, text, line, message) => {
    const bad = readInventory([{ path: "hosts", text }]);
    expect(bad.problems).toEqual([expect.objectContaining({ kind: "parse", file: "hosts", line })]);
    expect(bad.problems[0]?.message).toContain(message);
  });
});

describe("YAML", () => {
  const YAML = lines(
    "all:", //                         1
    "  vars:", //                      2
    "    vllm_image: vllm/vllm-openai:v0.8.5", // 3
    "  children:", //                  4
    "    gpu:", //                     5
    "      hosts:", //                 6
    "        gpu-a:", //               7
    "          vllm_ctx: 32768", //    8
    "        gpu-b:", //               9
    "      children:", //              10
    "        big: { hosts: { gpu-c: } }", // 11
  );

  test("groups, children, host vars placed at their own lines", () => {
    const inv = readInventory([{ path: "inventory/hosts.yml", text: YAML }]);
    expect(inv.problems).toEqual([]);
    expect(selectHosts(inv, ["gpu"])).toEqual(["gpu-a", "gpu-b", "gpu-c"]);
    expect(groupsOf(inv, "gpu-c")).toEqual(["gpu", "big"]);
    expect(placeOf(inv.hosts.get("gpu-a")?.vars, "vllm_ctx")).toEqual({
      file: "inventory/hosts.yml",
      line: 8,
      name: "vllm_ctx",
      yaml: true,
    });
    expect(placeOf(inv.groups.get("all")?.vars, "vllm_image")?.line).toBe(3);
    expect(inv.hosts.get("gpu-b")?.line).toBe(9);
  });

  test.each([
    ["not valid YAML (at the line the parser names)", lines("all:", "  hosts: [", "    gpu-a"), "parse", 4],
    ["a list, not groups", lines("- gpu-a"), "parse", 1],
    ["a group that is a list", lines("all:", "  children:", "    gpu: [a, b]"), "parse", 3],
    ["an unknown key under a group", lines("all:", "  host:", "    gpu-a:"), "parse", 2],
    ["a dynamic inventory plugin", lines("plugin: amazon.aws.aws_ec2", "regions: [eu-west-1]"), "unresolved", 1],
  ])("%s is a problem at its line", (_name, text, kind, line) => {
    const inv = readInventory([{ path: "inventory/x.yml", text }]);
    expect(inv.problems[0]).toMatchObject({ kind, file: "inventory/x.yml", line });
  });
});
