// A month of per-minute GPU memory samples with boots and creep, in the three formats `kvgate observe`
// reads. Cards 0 and 1 tell the seeds' story of fv-ml1: before the 2026-10-05 rebalance GPU 0 creeps for
// 1–2 days after each boot to ~60 MiB free (and read ~1.05 GB free just after the 10-01 restart); GPU 1
// steps up ~2.5 GB at the 10-03 02:34 Docker-move restart; at 22:26–22:49 on 10-05 both restart into the
// new layout (GPU 0 4,036 MiB free right after, GPU 1 10,864) and creep to their new plateaus by 10-07.
// Cards 2.. (for benchmarks) are variations. Deterministic (seeded).
//
//   node bench/gen-gpu-samples.mjs --out FILE [--format nvidia-smi|prometheus|beszel] [--cards N]
//        [--host fv-ml1] [--days 30] [--seed S]
import { closeSync, openSync, writeSync } from "node:fs";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    out: { type: "string" },
    format: { type: "string", default: "nvidia-smi" },
    cards: { type: "string", default: "2" },
    host: { type: "string", default: "fv-ml1" },
    days: { type: "string", default: "30" },
    seed: { type: "string", default: "7" },
  },
});
if (!values.out || !["nvidia-smi", "prometheus", "beszel"].includes(values.format)) {
  console.error(
    "usage: node bench/gen-gpu-samples.mjs --out FILE [--format nvidia-smi|prometheus|beszel] [--cards N] [--host H] [--days 30]",
  );
  process.exit(2);
}

let state = Number(values.seed) >>> 0;
function rand() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const END = Date.UTC(2026, 9, 8); // 2026-10-08 00:00 UTC: "verify both cards' plateaus ~10-07/08"
const START = END - Number(values.days) * DAY;
const TOTAL_MIB = 97_887; // what nvidia-smi reports for a "96 GB" card
const at = (s) => Date.parse(s);

// Per card: boots (time, free MiB 10 minutes in, free MiB at plateau, hours to get there).
const CARDS = [
  {
    boots: [
      [START, 1_000, 74, 30],
      [at("2026-09-14T03:10:00Z"), 1_080, 76, 36],
      [at("2026-09-21T02:40:00Z"), 1_040, 72, 40],
      [at("2026-09-29T04:05:00Z"), 1_060, 78, 30],
      [at("2026-10-01T09:12:00Z"), 1_075, 74, 44], // "Free ~1.05 GB at rest" was read just after this one
      [at("2026-10-05T22:26:00Z"), 4_036, 2_380, 34], // the rebalance: cyberprev may still creep
    ],
  },
  {
    boots: [
      [START, 7_300, 7_100, 6],
      [at("2026-09-16T01:20:00Z"), 7_420, 7_180, 8],
      [at("2026-09-29T04:05:00Z"), 7_380, 7_130, 8],
      [at("2026-10-03T02:34:00Z"), 4_850, 4_640, 8], // the Docker-move restart: ~2.5 GB gone in one step
      [at("2026-10-05T22:40:00Z"), 10_864, 6_950, 30], // the rebalance: gen-small settles over a day
    ],
  },
];
const cardCount = Number(values.cards);
for (let c = CARDS.length; c < cardCount; c++) {
  const boots = [[START, 6_000 + 900 * c, 2_000 + 300 * c, 12 + 3 * c]];
  for (let t = START + (2 + c) * DAY + c * 37 * MIN; t < END - DAY; t += (5 + (c % 4)) * DAY + c * 53 * MIN) {
    boots.push([t, 5_500 + 700 * c + Math.round(rand() * 500), 1_500 + 250 * c + Math.round(rand() * 300), 10 + 4 * c]);
  }
  CARDS.push({ boots });
}

/** Used MiB at time t for a card: a dip and a reload at each boot, then creep toward the plateau. */
function usedAt(card, t) {
  let k = 0;
  while (k + 1 < card.boots.length && card.boots[k + 1][0] <= t) k++;
  const [b, bootFree, plateauFree, hours] = card.boots[k];
  const since = t - b;
  const noise = Math.round((rand() - 0.5) * 24);
  if (k > 0 || b > START) {
    if (since < 2 * MIN) return 480 + noise; // engines stopped: the driver's own context
    if (since < 9 * MIN) return Math.round(480 + ((since - 2 * MIN) / (7 * MIN)) * (TOTAL_MIB - bootFree - 480)) + noise;
  }
  const tau = (hours * HOUR) / 4;
  const free = plateauFree + (bootFree - plateauFree) * Math.exp(-Math.max(0, since - 10 * MIN) / tau);
  // A short activation spike now and then lowers free by up to 40 MiB, never below the plateau.
  const spike = rand() < 0.01 ? Math.round(rand() * Math.max(0, free - plateauFree)) : 0;
  return Math.min(TOTAL_MIB, Math.round(TOTAL_MIB - free) + Math.abs(noise) + spike);
}

const fd = openSync(values.out, "w");
let buf = [];
let len = 0;
const put = (s) => {
  buf.push(s);
  len += s.length;
  if (len > 4 << 20) {
    writeSync(fd, buf.join(""));
    buf = [];
    len = 0;
  }
};
const pad = (n, w = 2) => String(n).padStart(w, "0");
const smiTime = (t) => {
  const d = new Date(t);
  return `${d.getUTCFullYear()}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
};

const times = [];
for (let t = START; t < END; t += MIN) times.push(t);
const used = CARDS.map((card) => times.map((t) => usedAt(card, t)));

if (values.format === "nvidia-smi") {
  put("timestamp, index, memory.used [MiB], memory.total [MiB]\n");
  times.forEach((t, i) => {
    for (let c = 0; c < CARDS.length; c++) put(`${smiTime(t)}, ${c}, ${used[c][i]} MiB, ${TOTAL_MIB} MiB\n`);
  });
} else if (values.format === "prometheus") {
  put('{"status":"success","data":{"resultType":"matrix","result":[');
  const series = [];
  for (let c = 0; c < CARDS.length; c++) {
    for (const [name, f] of [
      ["DCGM_FI_DEV_FB_USED", (u) => u],
      ["DCGM_FI_DEV_FB_FREE", (u) => TOTAL_MIB - u],
    ]) {
      const labels = `{"__name__":"${name}","gpu":"${c}","Hostname":"${values.host}","modelName":"NVIDIA RTX PRO 6000 Blackwell","job":"dcgm"}`;
      series.push(`{"metric":${labels},"values":[${times.map((t, i) => `[${t / 1000},"${f(used[c][i])}"]`).join(",")}]}`);
    }
  }
  put(series.join(","));
  put("]}}\n");
} else {
  put('{"page":1,"perPage":' + times.length + ',"totalItems":' + times.length + ',"items":[\n');
  times.forEach((t, i) => {
    const g = CARDS.map(
      (_, c) =>
        `"${c}":{"n":"NVIDIA RTX PRO 6000","mu":${(used[c][i] / 1.024).toFixed(2)},"mt":${(TOTAL_MIB / 1.024).toFixed(2)},"u":${Math.round(rand() * 100)}}`,
    ).join(",");
    const created = new Date(t).toISOString().replace("T", " ");
    put(
      `${i ? "," : ""}{"id":"r${i}","system":"sys${values.host}","type":"1m","created":"${created}","stats":{"cpu":12.5,"g":{${g}}},"expand":{"system":{"name":"${values.host}"}}}\n`,
    );
  });
  put("]}\n");
}
writeSync(fd, buf.join(""));
closeSync(fd);
console.error(`${times.length} samples × ${CARDS.length} cards → ${values.out}`);
