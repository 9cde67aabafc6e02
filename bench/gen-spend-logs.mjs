// A week of LiteLLM spend logs (LiteLLM_SpendLogs rows) for the example fleet's seats: diurnal load,
// lognormal prompt and reply sizes per seat, decode-speed durations, and the seeds' 9 runaway replies of
// ~260k tokens on gen-small, all from one key. Deterministic (seeded). The default week reproduces the
// seeds' gen-small figures (22,396 calls, p99 prompt ≈ 4.5k, peak in flight ≈ 24.5k tokens without the
// runaways); `--rows N` scales every seat's traffic to about N rows for benchmarks.
//
//   node bench/gen-spend-logs.mjs --out week.jsonl [--format jsonl|json|csv] [--rows N] [--seed S]
//
// Rows come out in endTime order, as LiteLLM inserts them (a spend row is written when the request
// ends): a long reply's row lands after rows that started later, as in a real export.
import { closeSync, openSync, writeSync } from "node:fs";
import { createHash } from "node:crypto";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    out: { type: "string" },
    format: { type: "string", default: "jsonl" },
    rows: { type: "string" },
    seed: { type: "string", default: "4" },
  },
});
if (!values.out) {
  console.error("usage: node bench/gen-spend-logs.mjs --out FILE [--format jsonl|json|csv] [--rows N] [--seed S]");
  process.exit(2);
}
const format = values.format;
if (!["jsonl", "json", "csv"].includes(format)) {
  console.error(`--format must be jsonl, json or csv (got ${format})`);
  process.exit(2);
}

// mulberry32: a small seeded PRNG, so the same flags give the same file byte for byte.
let state = Number(values.seed) >>> 0;
function rand() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function normal() {
  const u = 1 - rand();
  const v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
const lognormal = (median, sigma) => median * Math.exp(sigma * normal());

const WEEK_START = Date.UTC(2026, 8, 28); // Monday 2026-09-28 00:00 UTC
const WEEK_MS = 7 * 86_400_000;

// Diurnal load: quiet at night (03:00 UTC), busiest mid-afternoon; weekends at 60 %.
function loadAt(t) {
  const hour = ((t - WEEK_START) / 3_600_000) % 24;
  const day = Math.floor((t - WEEK_START) / 86_400_000);
  const daily = 1 + 0.85 * Math.sin((2 * Math.PI * (hour - 9)) / 24);
  return daily * (day >= 5 ? 0.6 : 1);
}
/** n arrival times over the week, by rejection against the diurnal load, sorted. */
function arrivals(n) {
  const out = new Float64Array(n);
  for (let i = 0; i < n;) {
    const t = WEEK_START + rand() * WEEK_MS;
    if (rand() * 1.85 <= loadAt(t)) out[i++] = t;
  }
  return out.sort();
}

const key = (alias) => ({ alias, hash: createHash("sha256").update(`sk-${alias}-kvgate-example-key`).digest("hex") });
const KEYS = {
  nemi: key("albok-nemi"),
  agents: key("all-agents-local"),
  tts: key("tts-frontend"),
  ide: key("coder-ide"),
  erp: key("erp-app"),
  router: key("router"),
  rp: key("meromero-app"),
  triage: key("cyberprev-triage"),
  sec: key("sec-scanner"),
};

// Per seat: calls in the week, prompt and reply size (median, spread, ceiling), decode speed, keys.
const SEATS = [
  {
    name: "gen-small",
    calls: 22_396,
    prompt: [900, 0.69, 30_000],
    reply: [340, 0.9, 8_000],
    tps: 40,
    keys: [KEYS.nemi, KEYS.agents, KEYS.router],
  },
  { name: "intern-decision", calls: 5_412, prompt: [1_400, 0.4, 12_000], reply: [24, 0.5, 400], tps: 80, keys: [KEYS.router] },
  { name: "voices", calls: 3_918, prompt: [600, 0.5, 6_000], reply: [420, 0.45, 3_500], tps: 45, keys: [KEYS.tts] },
  { name: "coder", calls: 2_104, prompt: [3_800, 0.8, 30_000], reply: [600, 0.9, 8_000], tps: 40, keys: [KEYS.ide] },
  { name: "meromero-rp", calls: 1_447, prompt: [14_000, 0.7, 100_000], reply: [380, 0.5, 4_000], tps: 35, keys: [KEYS.rp] },
  { name: "cyberprev", calls: 806, prompt: [2_200, 0.6, 30_000], reply: [300, 0.7, 6_000], tps: 90, keys: [KEYS.triage] },
  { name: "erp-seat", calls: 611, prompt: [1_800, 0.5, 20_000], reply: [250, 0.6, 3_000], tps: 70, keys: [KEYS.erp] },
  // Traffic for a model the fleet repository does not serve (a cloud model behind the same gateway).
  {
    name: "sec",
    calls: 400,
    prompt: [2_500, 0.5, 20_000],
    reply: [500, 0.5, 4_000],
    tps: 80,
    keys: [KEYS.sec],
    model: "openai/gpt-4.1-mini",
  },
];
const BASE_ROWS = SEATS.reduce((n, s) => n + s.calls, 0);
const scale = values.rows ? Number(values.rows) / BASE_ROWS : 1;

// The seeds' runaways: 9 replies of ~260k tokens on gen-small in the week, one key, at temperature 0
// on some memory entries; decoded at ~40 tokens/s they run for about 1.8 hours each.
const RUNAWAYS = Math.round(9 * scale);

function requestId(i) {
  const h = createHash("md5").update(`${values.seed}:${i}`).digest("hex");
  return `chatcmpl-${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function makeRequest(seat, t, i, runaway) {
  const clamp = (v, hi) => Math.max(1, Math.min(hi, Math.round(v)));
  const prompt = clamp(lognormal(...seat.prompt.slice(0, 2)), seat.prompt[2]);
  const completion = runaway ? 258_000 + Math.floor(rand() * 4_144) : clamp(lognormal(...seat.reply.slice(0, 2)), seat.reply[2]);
  // Prefill at ~6k tokens/s, then decode; a little queueing noise.
  const secs = prompt / 6_000 + completion / (runaway ? 40 : seat.tps * (0.8 + 0.4 * rand())) + 0.05 + rand() * 0.3;
  const start = Math.round(t);
  const end = start + Math.max(1, Math.round(secs * 1000));
  const k = runaway ? KEYS.agents : seat.keys[Math.floor(rand() * seat.keys.length)];
  return { id: requestId(i), seat, key: k, prompt, completion, start, end };
}

const iso = (ms) => new Date(ms).toISOString();
// The columns of LiteLLM_SpendLogs that matter here, under their schema.prisma names; an export has
// more (spend, total_tokens, api_base, messages, response, ...), which kvgate ignores.
const CSV_HEADER = "request_id,call_type,api_key,prompt_tokens,completion_tokens,startTime,endTime,model,model_group,metadata,status";
function rowText(r) {
  const model = r.seat.model ?? `hosted_vllm/${r.seat.name}`;
  if (format === "csv") {
    return `${r.id},acompletion,${r.key.hash},${r.prompt},${r.completion},${iso(r.start)},${iso(r.end)},${model},${r.seat.name},"{""user_api_key_alias"": ""${r.key.alias}""}",success`;
  }
  return `{"request_id":"${r.id}","call_type":"acompletion","api_key":"${r.key.hash}","prompt_tokens":${r.prompt},"completion_tokens":${r.completion},"startTime":"${iso(r.start)}","endTime":"${iso(r.end)}","model":"${model}","model_group":"${r.seat.name}","metadata":{"user_api_key_alias":"${r.key.alias}"},"status":"success"}`;
}

// Every seat's arrivals, merged in start order; rows leave a heap by endTime once no later start can
// end before them.
const streams = SEATS.map((seat) => ({ seat, times: arrivals(Math.max(1, Math.round(seat.calls * scale))), at: 0 }));
const genSmall = streams[0];
const runawayAt = new Set();
while (runawayAt.size < RUNAWAYS) runawayAt.add(Math.floor(rand() * genSmall.times.length));

const fd = openSync(values.out, "w");
let buf = [];
let bufLen = 0;
let rows = 0;
const flush = () => {
  if (buf.length) writeSync(fd, buf.join(""));
  buf = [];
  bufLen = 0;
};
const emit = (text) => {
  const sep = format === "json" ? (rows === 0 ? "\n" : ",\n") : "\n";
  const piece = format === "json" ? sep + text : text + sep;
  buf.push(piece);
  bufLen += piece.length;
  rows++;
  if (bufLen > 4 << 20) flush();
};
if (format === "csv") buf.push(CSV_HEADER + "\n");
if (format === "json") buf.push("[");

// A binary heap by end time.
const heap = [];
const hpush = (r) => {
  heap.push(r);
  let i = heap.length - 1;
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (heap[p].end <= r.end) break;
    heap[i] = heap[p];
    i = p;
  }
  heap[i] = r;
};
const hpop = () => {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length) {
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) break;
      const c = l + 1 < heap.length && heap[l + 1].end < heap[l].end ? l + 1 : l;
      if (heap[c].end >= last.end) break;
      heap[i] = heap[c];
      i = c;
    }
    heap[i] = last;
  }
  return top;
};

let n = 0;
for (;;) {
  let next = null;
  for (const s of streams) if (s.at < s.times.length && (next === null || s.times[s.at] < next.times[next.at])) next = s;
  if (next === null) break;
  const t = next.times[next.at];
  const runaway = next === genSmall && runawayAt.has(next.at);
  next.at++;
  while (heap.length && heap[0].end <= t) emit(rowText(hpop()));
  hpush(makeRequest(next.seat, t, n++, runaway));
}
while (heap.length) emit(rowText(hpop()));
if (format === "json") buf.push("\n]\n");
flush();
closeSync(fd);
console.error(`${rows} rows → ${values.out}`);
