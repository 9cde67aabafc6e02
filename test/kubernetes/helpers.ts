// Kubernetes test helpers: a fleet loaded by the real loader from in-memory files, and compact views of
// its seats (what Kubernetes would run: name, pool, cards, model, TP, settings, image).
import { loadFleet } from "../../src/load/fleet.js";
import { loadPolicy } from "../../src/config/load.js";
import { loadPack } from "../../src/rules/load.js";
import type { LoadedFleet, Service } from "../../src/model/types.js";
import { memorySnapshot } from "../helpers/memory.js";

/** Lines joined with newlines; line 1 is the first argument. */
export const lines = (...l: string[]): string => l.join("\n") + "\n";

export async function fleetOf(files: Record<string, string>): Promise<LoadedFleet> {
  const pack = loadPack();
  const policy = loadPolicy(files["kvgate.yaml"] ?? null, "kvgate.yaml", pack);
  return loadFleet(memorySnapshot(files), policy, pack);
}

interface SeatView {
  host: string | null;
  gpus: number[];
  model: string | null;
  tp: number;
  image: string | null;
  settings: Record<string, unknown>;
}

function seatView(s: Service): SeatView {
  const settings: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s.settings)) settings[k] = v.value;
  return { host: s.host, gpus: s.gpus, model: s.model, tp: s.tp, image: s.env.entries.get("IMAGE")?.value ?? null, settings };
}

/** The seats of the running face a Kubernetes file deploys, by name. */
export function k8sSeats(f: LoadedFleet): Record<string, SeatView> {
  const names = new Set((f.running.kubernetes?.seats ?? []).map((s) => s.service));
  const out: Record<string, SeatView> = {};
  for (const s of f.running.services) if (names.has(s.name)) out[s.name] = seatView(s);
  return out;
}
