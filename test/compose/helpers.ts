// Compose test helpers: YAML written as numbered lines (so expected line numbers are readable), a
// reader over an in-memory repo, and compact views of deploys and problems.
import type { EnvEdit } from "../../src/playbook/records.js";
import { readCompose, type ComposeRead, type ComposeReadOptions } from "../../src/compose/index.js";
import { composeSchemaCheck } from "../../src/load/compose-schema.js";

/** Lines joined with newlines; line 1 is the first argument. */
export const lines = (...l: string[]): string => l.join("\n") + "\n";

export const CF = "deploy/compose.yaml";

/** Reads as the fleet loader does: with the Compose Specification's schema check. */
export function read(files: Record<string, string>, path = CF, opts?: ComposeReadOptions): ComposeRead {
  return readCompose(path, new Map(Object.entries(files)), { schema: composeSchemaCheck, ...opts });
}

/** The edits of one deploy (by fleet service) as compact tuples: [kind, key, value, line, file?]. */
export function edits(r: ComposeRead, service: string, file = CF): (string | number | number[])[][] {
  const d = r.deploys.find((x) => x.service === service);
  if (!d) throw new Error(`no deploy of ${service}: ${r.deploys.map((x) => x.service).join(", ")}`);
  return d.edits.map((e: EnvEdit) => {
    const row: (string | number | number[])[] = [e.kind];
    if (e.kind === "set" || e.kind === "remove" || e.kind === "flags") row.push(e.key);
    if (e.kind === "set" || e.kind === "flags" || e.kind === "gpus") row.push(e.value);
    row.push(e.line);
    if (e.file !== file) row.push(e.file);
    return row;
  });
}

/** Only the `set` edits, as KEY → [value, line, file?]. */
export function sets(r: ComposeRead, service: string, file = CF): Record<string, (string | number)[]> {
  const out: Record<string, (string | number)[]> = {};
  for (const e of r.deploys.find((x) => x.service === service)?.edits ?? []) {
    if (e.kind !== "set") continue;
    out[e.key] = e.file === file ? [e.value, e.line] : [e.value, e.line, e.file];
  }
  return out;
}

export function flags(r: ComposeRead, service: string): { value: string; line: number; file: string; wordLines: number[] } | null {
  const e = r.deploys.find((x) => x.service === service)?.edits.find((x) => x.kind === "flags");
  return e && e.kind === "flags" ? { value: e.value, line: e.line, file: e.file, wordLines: e.wordLines ?? [] } : null;
}

export function gpus(r: ComposeRead, service: string): [string, number, string] | null {
  const e = r.deploys.find((x) => x.service === service)?.edits.find((x) => x.kind === "gpus");
  return e && e.kind === "gpus" ? [e.value, e.line, e.file] : null;
}

export function problems(r: ComposeRead): [string, string, number][] {
  return r.problems.map((p) => [p.kind, p.file, p.line]);
}

/** A GPU reservation under a service: `deploy.resources.reservations.devices` with these item lines. */
export const reservation = (...device: string[]): string[] => [
  "    deploy:",
  "      resources:",
  "        reservations:",
  "          devices:",
  ...device,
];

/** kvgate.yaml of one host, gpu1, with four cards of `total` (and 1 GiB reserve each). */
export const fourCards = (total = "48GiB"): string =>
  [
    "version: 1",
    "fleet:",
    "  hosts:",
    "    gpu1:",
    "      gpus:",
    ...[0, 1, 2, 3].map((i) => `        - { index: ${i}, total: ${total}, reserve: 1GiB }`),
    "vllm: { overhead: 2GiB }",
    "",
  ].join("\n");
