// Which host cards a compose service runs on, as Docker places them. docker compose turns the
// service's GPU requests into the container's device requests (docker/compose pkg/compose/create.go:
// setReservations for `deploy.resources.reservations.devices`, then `gpus:`; a CDI name in
// `devices:` is a request of the cdi driver), and the daemon's nvidia driver turns each request into
// NVIDIA_VISIBLE_DEVICES (moby daemon/nvidia_linux.go setNvidiaGPUs): device_ids as written, `count:
// N` the cards 0..N-1 (countToDevices), `count: all` (-1) every card, `count: 0` none. Each request
// appends its variable, and the toolkit reads the environment as a map (nvidia-container-toolkit
// internal/config/image/builder.go WithEnv), so the last request is the one that counts. A request
// with neither count nor device_ids is `count: all` (compose-go transform/devices.go
// deviceRequestDefaults), and so is `gpus: all`. Without a request, NVIDIA_VISIBLE_DEVICES
// (environment or env_file) says what the nvidia runtime gives; `runtime: nvidia` without it gives
// every card (the CUDA images set NVIDIA_VISIBLE_DEVICES=all).
//
// Inside the container the cards given are numbered from 0, so CUDA_VISIBLE_DEVICES picks among them
// (device_ids ['2','3'] with CUDA_VISIBLE_DEVICES=1 is host card 3). "Every card" is resolved by the
// fleet loader, which knows the host's cards (src/load/running.ts): there a pick chooses among them,
// else vLLM runs on the first TP × PP of them.
import { problem, unresolved, type Ctx } from "./context.js";
import { get, getIn, textOf, type CMap, type CNode, type Pos } from "./tree.js";
import type { CardsLine, GpuRequest } from "./records.js";

/** A GPU env key as the container gets it (environment over env_file). */
export interface GpuVar {
  key: string;
  value: string | null;
  node: CNode;
}

export interface Gpus {
  request: GpuRequest | null;
  /** The host cards (`0,1`) when the compose file decides them, with the line; `cards.line` alone
   *  (no value) when the container gets every card of its host, which the loader resolves. */
  cards: { value: string | null; pos: Pos; line: CardsLine } | null;
}

/** More cards than any host holds: a count past it is not a list kvgate writes out. */
const MAX_CARDS = 256;

type Place =
  | { kind: "cards"; ids: string[]; pos: Pos; via: CardsLine["via"]; given?: CardsLine["given"] }
  /** Every card of the host; `picks`: CUDA_VISIBLE_DEVICES indices among them. */
  | { kind: "all"; pos: Pos; via: CardsLine["via"]; picks: number[] | null; given?: CardsLine["given"] }
  /** kvgate cannot say (an unresolved id, a UUID, a pick past the cards); `why` is null when already reported. */
  | { kind: "unknown"; why: string | null; pos: Pos }
  /** Nothing restricts what the container sees: CUDA_VISIBLE_DEVICES then names host cards. */
  | { kind: "host" }
  | { kind: "none" };

interface Request {
  ids: string[];
  idsNode: CNode | null;
  count: number | "all" | null;
  node: CNode;
  source: string;
  unreadable: boolean;
}

export function gpusOf(ctx: Ctx, service: string, def: CMap, vars: ReadonlyMap<string, GpuVar>): Gpus {
  const requests = requestsOf(ctx, service, def);
  let place: Place;
  let request: GpuRequest | null = null;
  // The nvidia driver's requests: the last one sets NVIDIA_VISIBLE_DEVICES. CDI names add their cards.
  const nvidia = requests.filter((r) => r.source !== "devices");
  const cdi = requests.filter((r) => r.source === "devices");
  const last = nvidia[nvidia.length - 1] ?? null;
  if (last || cdi.length > 0) {
    const chosen = last ?? (cdi[0] as Request);
    const at = (chosen.idsNode ?? chosen.node).pos;
    const cdiIds = cdi.flatMap((r) => r.ids);
    const count = last ? last.count : cdi.some((r) => r.count === "all") ? "all" : null;
    const ids = last ? last.ids : cdiIds;
    request = { deviceIds: ids.length > 0 ? ids : null, count, source: chosen.source, file: at.file, line: at.line };
    if (requests.some((r) => r.unreadable)) place = { kind: "unknown", why: null, pos: at };
    else if (count === "all") place = { kind: "all", pos: chosen.node.pos, via: "all", picks: null };
    else if (typeof count === "number")
      // moby countToDevices: `count: N` is the cards 0..N-1; 0 is none (NVIDIA_VISIBLE_DEVICES=void).
      place =
        count === 0
          ? { kind: "none" }
          : count > MAX_CARDS
            ? { kind: "unknown", why: `count: ${count} asks for more cards than a host has`, pos: chosen.node.pos }
            : { kind: "cards", ids: [...Array(count).keys()].map(String), pos: chosen.node.pos, via: "count" };
    else
      place = {
        kind: "cards",
        ids: last && cdiIds.length > 0 ? [...new Set([...ids, ...cdiIds])] : ids,
        pos: at,
        via: chosen.source === "devices" ? "devices" : "device_ids",
      };
  } else {
    const visible = vars.get("NVIDIA_VISIBLE_DEVICES");
    const runtime = get(def, "runtime");
    if (visible) {
      place = fromVisible(ctx, service, visible);
      const list = place.kind === "cards" ? place.ids : null;
      if (place.kind !== "none")
        request = {
          deviceIds: list,
          count: list ? null : "all",
          source: "NVIDIA_VISIBLE_DEVICES",
          file: visible.node.pos.file,
          line: visible.node.pos.line,
        };
    } else if (textOf(runtime) === "nvidia") {
      const pos = (runtime as CNode).pos;
      place = { kind: "all", pos, via: "all", picks: null };
      request = { deviceIds: null, count: "all", source: "runtime", file: pos.file, line: pos.line };
    } else place = { kind: "host" };
  }
  const cuda = vars.get("CUDA_VISIBLE_DEVICES");
  if (cuda) place = narrow(ctx, service, place, cuda);
  if (place.kind === "unknown" && place.why !== null) {
    problem(ctx, {
      kind: "unresolved",
      file: place.pos.file,
      line: place.pos.line,
      message:
        `${service}: ${place.why}; kvgate cannot tell which cards it runs on, so ` +
        `the env file's GPU is checked instead (name the cards: device_ids: ['0'])`,
      service,
      key: "GPU",
    });
  }
  if (place.kind === "all") {
    const line: CardsLine = {
      via: place.via,
      ids: [],
      file: place.pos.file,
      line: place.pos.line,
      given: place.given ?? null,
      everyCard: { picks: place.picks },
    };
    return { request, cards: { value: null, pos: place.pos, line } };
  }
  if (place.kind !== "cards") return { request, cards: null };
  const odd = place.ids.find((id) => !/^\d+$/.test(id));
  if (odd !== undefined) {
    problem(ctx, {
      kind: "unresolved",
      file: place.pos.file,
      line: place.pos.line,
      message:
        `${service}: card ${odd} is not a card index; kvgate places seats by index, so ` +
        `the env file's GPU is checked instead (write the index, e.g. device_ids: ['0'])`,
      service,
      key: "GPU",
    });
    return { request, cards: null };
  }
  const line: CardsLine = { via: place.via, ids: place.ids, file: place.pos.file, line: place.pos.line, given: place.given ?? null };
  return { request, cards: { value: place.ids.join(","), pos: place.pos, line } };
}

function requestsOf(ctx: Ctx, service: string, def: CMap): Request[] {
  const out: Request[] = [];
  const devices = getIn(def, "deploy", "resources", "reservations", "devices");
  for (const item of devices?.t === "seq" ? devices.items : []) {
    if (item.t !== "map") continue;
    const caps = get(item, "capabilities");
    const capList = (caps?.t === "seq" ? caps.items : caps ? [caps] : []).map(textOf);
    if (!capList.includes("gpu") && textOf(get(item, "driver")) !== "nvidia") continue;
    const r = requestOf(ctx, service, item, "deploy.resources.reservations.devices");
    if (r) out.push(r);
  }
  // CDI device names (services `devices`: "vendor.com/device=gpu"): nvidia.com/gpu=0 or =all.
  const mapped = get(def, "devices");
  for (const item of mapped?.t === "seq" ? mapped.items : []) {
    const t = item.t === "map" ? get(item, "source") : item;
    const cdi = /^nvidia\.com\/gpu=(.+)$/.exec(textOf(t) ?? "");
    if (!cdi || !t) continue;
    const id = cdi[1] as string;
    out.push(
      id === "all"
        ? { ids: [], idsNode: null, count: "all", node: t, source: "devices", unreadable: false }
        : { ids: [id], idsNode: t, count: null, node: t, source: "devices", unreadable: false },
    );
  }
  const gpus = get(def, "gpus");
  // `gpus: all` (the schema's only string) is one request for every card (transform/gpus.go).
  if (gpus?.t === "str" && gpus.value === "all")
    out.push({ ids: [], idsNode: null, count: "all", node: gpus, source: "gpus", unreadable: false });
  else if (gpus?.t === "str" && gpus.unresolved) {
    unresolved(ctx, gpus, `gpus of ${service}`, service, "GPU");
    out.push({ ids: [], idsNode: null, count: null, node: gpus, source: "gpus", unreadable: true });
  } else if (gpus?.t === "seq") {
    for (const item of gpus.items) {
      if (item.t !== "map") continue;
      const r = requestOf(ctx, service, item, "gpus");
      if (r) out.push(r);
    }
  }
  return out;
}

function requestOf(ctx: Ctx, service: string, item: CMap, source: string): Request | null {
  const idsNode = get(item, "device_ids") ?? null;
  const countNode = get(item, "count");
  if (idsNode && countNode) {
    problem(ctx, {
      kind: "parse",
      file: countNode.pos.file,
      line: countNode.pos.line,
      message:
        `${service}: ${source} sets both count and device_ids; docker compose refuses it ` +
        `("\\"count\\" and \\"device_ids\\" attributes are exclusive"): keep device_ids`,
      service,
      key: "GPU",
    });
    return null;
  }
  if (idsNode) {
    const items = idsNode.t === "seq" ? idsNode.items : [idsNode];
    const ids: string[] = [];
    let unreadable = false;
    for (const n of items) {
      if (n.t === "str" && n.unresolved) {
        unresolved(ctx, n, `device_ids of ${service}`, service, "GPU");
        unreadable = true;
      } else {
        const t = textOf(n);
        if (t !== null)
          ids.push(
            ...t
              .split(",")
              .map((s) => s.trim())
              .filter((s) => s !== ""),
          );
      }
    }
    return { ids, idsNode, count: null, node: item, source, unreadable };
  }
  if (countNode?.t === "str" && countNode.unresolved) {
    unresolved(ctx, countNode, `count of ${service}`, service, "GPU");
    return { ids: [], idsNode: null, count: null, node: item, source, unreadable: true };
  }
  const c = textOf(countNode);
  // Without count or device_ids a request takes every card that has the capabilities.
  if (c === null || c === "all" || c === "-1")
    return { ids: [], idsNode: null, count: "all", node: countNode ?? item, source, unreadable: false };
  if (/^\d+$/.test(c)) return { ids: [], idsNode: null, count: Number(c), node: countNode ?? item, source, unreadable: false };
  const at = (countNode as CNode).pos;
  problem(ctx, {
    kind: "parse",
    file: at.file,
    line: at.line,
    message: `${service}: count: ${c} is not a number or all; docker compose refuses it`,
    service,
    key: "GPU",
  });
  return null;
}

/** NVIDIA_VISIBLE_DEVICES as the nvidia runtime reads it: `all`, `none`/`void`/empty, or a list. */
function fromVisible(ctx: Ctx, service: string, v: GpuVar): Place {
  if (v.value === null) {
    unresolved(ctx, v.node, `${v.key} of ${service}`, service, "GPU");
    return { kind: "unknown", why: null, pos: v.node.pos };
  }
  const t = v.value.trim();
  if (t === "all") return { kind: "all", pos: v.node.pos, via: "NVIDIA_VISIBLE_DEVICES", picks: null };
  if (t === "" || t === "none" || t === "void") return { kind: "none" };
  return {
    kind: "cards",
    ids: t
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
    pos: v.node.pos,
    via: "NVIDIA_VISIBLE_DEVICES",
  };
}

/** CUDA_VISIBLE_DEVICES inside the container picks among the cards the container was given. */
function narrow(ctx: Ctx, service: string, place: Place, v: GpuVar): Place {
  if (v.value === null) {
    unresolved(ctx, v.node, `${v.key} of ${service}`, service, "GPU");
    return { kind: "unknown", why: null, pos: v.node.pos };
  }
  const picks = v.value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  switch (place.kind) {
    case "none":
    case "unknown":
      return place;
    case "host":
      return { kind: "cards", ids: picks, pos: v.node.pos, via: "CUDA_VISIBLE_DEVICES" };
    case "all": {
      const odd = picks.find((p) => !/^\d+$/.test(p));
      if (odd !== undefined)
        return {
          kind: "unknown",
          why: `CUDA_VISIBLE_DEVICES=${v.value} names ${odd}, not a card index inside the container`,
          pos: v.node.pos,
        };
      const given = { via: place.via, ids: [], file: place.pos.file, line: place.pos.line };
      return { kind: "all", pos: v.node.pos, via: "CUDA_VISIBLE_DEVICES", picks: picks.map(Number), given };
    }
    case "cards": {
      const ids: string[] = [];
      for (const p of picks) {
        const id = /^\d+$/.test(p) ? place.ids[Number(p)] : undefined;
        if (id === undefined) {
          return {
            kind: "unknown",
            why:
              `CUDA_VISIBLE_DEVICES=${v.value} picks card ${p} inside the container, ` +
              `which is given ${place.ids.length} card${place.ids.length === 1 ? "" : "s"} ` +
              `(${place.ids.join(",")}, numbered from 0 there); CUDA fails to start on it`,
            pos: v.node.pos,
          };
        }
        ids.push(id);
      }
      const given = { via: place.via, ids: place.ids, file: place.pos.file, line: place.pos.line };
      return { kind: "cards", ids, pos: v.node.pos, via: "CUDA_VISIBLE_DEVICES", given };
    }
    default:
      place satisfies never;
      return place;
  }
}
