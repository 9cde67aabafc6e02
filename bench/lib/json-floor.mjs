// The parse floor for `usage`: the same reading as kvgate (4 MiB reads, split on the newline byte, one
// string per line) and a bare JSON.parse of every line, nothing else. usage's target is
// ≤ 1.5 × (wc -l + this).
import { openSync, readSync, closeSync } from "node:fs";

const fd = openSync(process.argv[2], "r");
const buf = Buffer.allocUnsafe(4 * 1024 * 1024);
let have = 0;
let rows = 0;
let sink = 0;
for (;;) {
  const n = readSync(fd, buf, have, buf.length - have, null);
  if (n === 0) break;
  const end = have + n;
  const view = buf.subarray(0, end);
  let from = 0;
  let nl;
  while ((nl = view.indexOf(10, from)) !== -1) {
    sink += JSON.parse(buf.toString("utf8", from, nl)).prompt_tokens;
    rows++;
    from = nl + 1;
  }
  have = end - from;
  buf.copy(buf, 0, from, end);
}
if (have > 0) {
  JSON.parse(buf.toString("utf8", 0, have));
  rows++;
}
closeSync(fd);
console.log(`${rows} rows (${sink})`);
