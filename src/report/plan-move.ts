// How to make one of plan's seat moves: the line to change, in the file that places the seat. A seat a
// compose file deploys is placed by its compose line (device_ids, a CDI `devices:` name, or the
// NVIDIA_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES it gives the container), else by its env file's GPU
// line, which may be an env_file the compose service loads. When a compose line moves a seat whose
// env file also names its card, that line is named too: otherwise the env file drifts from what runs
// (playbook/drift) and no longer says where the seat is.
import type { FleetState, Service } from "../model/types.js";
import type { CardsLine, ComposeDeploy } from "../compose/index.js";
import type { K8sSeat } from "../kubernetes/index.js";

/** The key the file moves the seat with: the one it uses (CUDA_VISIBLE_DEVICES, `export GPU`), else GPU. */
function gpuKeyOf(service: Service | undefined): string {
  const name = service?.origins.gpus?.name;
  return name === "CUDA_VISIBLE_DEVICES" || name === "NVIDIA_VISIBLE_DEVICES" ? name : "GPU";
}

/** The compose deploy that places the seat: the last compose file that sets its cards (as deployState lays them). */
function composeDeployOf(state: FleetState, name: string): ComposeDeploy | null {
  let found: ComposeDeploy | null = null;
  for (const r of state.composes ?? [])
    for (const d of r.deploys) if (d.service === name && (d.cards !== null || found === null)) found = d;
  return found;
}

function composeEdit(cards: CardsLine, to: number, request: ComposeDeploy["gpu"] = null): string {
  const at = `at ${cards.file}:${cards.line}`;
  switch (cards.via) {
    // Docker picks the cards of a count or of every card: name the card instead.
    case "count":
      return `set device_ids: ["${to}"] in place of its count ${at}`;
    case "all":
      return request?.source === "runtime"
        ? `add NVIDIA_VISIBLE_DEVICES=${to} to its environment (runtime: nvidia ${at} gives it every card)`
        : `set device_ids: ["${to}"] in place of its request for every card ${at}`;
    case "device_ids":
      return `set device_ids: ["${to}"] ${at}`;
    case "devices":
      return `set nvidia.com/gpu=${to} ${at}`;
    case "NVIDIA_VISIBLE_DEVICES":
      return `set NVIDIA_VISIBLE_DEVICES=${to} ${at}`;
    case "CUDA_VISIBLE_DEVICES": {
      if (cards.given === null) return `set CUDA_VISIBLE_DEVICES=${to} ${at}`;
      // Inside the container the given cards are numbered from 0: pick the card there, or give it the card.
      const inside = cards.given.ids.indexOf(String(to));
      if (inside >= 0) return `set CUDA_VISIBLE_DEVICES=${inside} ${at}`;
      return `${composeEdit({ ...cards.given, given: null }, to, request)} and CUDA_VISIBLE_DEVICES=0 ${at}`;
    }
    default:
      cards.via satisfies never;
      return "";
  }
}

/**
 * A Kubernetes seat: the device plugin, not a manifest, picks which card of its pool a pod gets, so no
 * line pins it to card `to`; what the manifest can change is the pool (its nodeSelector, node affinity
 * or a chart's nodeSelectorTerms) and the GPUs it asks for, each named as the file spells it.
 */
function k8sMoveText(seat: K8sSeat, to: number): string {
  const choice = seat.placedBy ?? seat.nodes[0];
  const where = choice
    ? `${choice.via} ${choice.key}: ${choice.values.join(", ")} at ${choice.file}:${choice.line}`
    : `${seat.kind === "modelSpec" ? "nodeSelectorTerms" : "nodeSelector"} for ${seat.workload} at ${seat.file}:${seat.line}`;
  const gpu = seat.gpu ? ` or its ${seat.gpu.key} at ${seat.gpu.file}:${seat.gpu.line} on a pool without sharing` : "";
  return (
    `Kubernetes picks the card of ${seat.pool ?? "its pool"} (no line pins ${seat.service} ` +
    `to gpu ${to}): to give it a card of its own, change its pool (${where})${gpu}`
  );
}

/**
 * The edit that moves seat `name` to card `to`. `state` is the fleet as deployed (its compose reads
 * included); `written` the fleet as the env files say, for the env file's own GPU line.
 */
export function seatMoveText(name: string, to: number, state: FleetState, written: FleetState | null): string {
  const k8s = state.kubernetes?.seats.find((s) => s.service === name);
  if (k8s) return k8sMoveText(k8s, to);
  const service = state.services.find((s) => s.name === name);
  const deploy = composeDeployOf(state, name);
  if (deploy?.cards) {
    const edit = composeEdit(deploy.cards, to, deploy.gpu);
    const env = written?.services.find((s) => s.name === name);
    const envGpu = env?.origins.gpus;
    const same = envGpu?.file === deploy.cards.file && envGpu.line === deploy.cards.line;
    const also =
      envGpu && envGpu.file === env.file && !same ? ` (and ${gpuKeyOf(env)}=${to} at ${envGpu.file}:${envGpu.line}, which it deploys)` : "";
    return `${edit}${also}`;
  }
  const origin = service?.origins.gpus;
  // A request kvgate cannot place (count, all, the whole host): Docker picks the card, so name it there too.
  const request = deploy?.gpu;
  const pick = !request
    ? ""
    : request.source === "NVIDIA_VISIBLE_DEVICES" || request.source === "runtime"
      ? `NVIDIA_VISIBLE_DEVICES=${to}`
      : `device_ids: ["${to}"] in place of its ${request.count === "all" ? "request for every card" : `count: ${request.count}`}`;
  const named = request && pick ? ` (and ${pick} at ${request.file}:${request.line}, so Docker gives it that card)` : "";
  if (origin) return `set ${gpuKeyOf(service)}=${to} at ${origin.file}:${origin.line}${named}`;
  // Nothing names its card yet: the env file is where the gate reads it.
  return `set GPU=${to} in ${service?.file ?? `the env file of ${name}`}`;
}
