// The byte progress bar: only on a TTY and for big inputs, redrawn at most every 100 ms, erased at the end.
import { describe, expect, test } from "vitest";
import { byteProgress } from "../../src/cli/byte-progress.js";

function fakeStream(isTTY: boolean): NodeJS.WriteStream & { out: string[] } {
  const out: string[] = [];
  return { isTTY, out, write: (s: string) => out.push(s) > 0 } as unknown as NodeJS.WriteStream & { out: string[] };
}

const GiB = 1024 ** 3;

describe("byte progress", () => {
  test("a TTY and a big input: a bar with the share, MiB and what is left; erased when done", () => {
    const s = fakeStream(true);
    const bar = byteProgress(s, 2 * GiB, "reading spend logs");
    bar.add(GiB);
    bar.add(1); // within 100 ms of the last draw: not redrawn
    bar.add(GiB - 1); // the end: always drawn
    bar.done();
    expect(s.out[0]).toMatch(/^\r\u001b\[2Kreading spend logs \[#{15}-{15}\] 50% 1024 MiB\/2048 MiB/);
    expect(s.out[1]).toMatch(/\[#{30}\] 100% 2048 MiB\/2048 MiB/);
    expect(s.out).toHaveLength(3);
    expect(s.out[2]).toBe("\r\u001b[2K");
  });
  test("not a TTY (CI logs, pipes), or a small input: nothing at all", () => {
    for (const [tty, total] of [
      [false, 2 * GiB],
      [true, 1024],
    ] as const) {
      const s = fakeStream(tty);
      const bar = byteProgress(s, total, "x");
      bar.add(total);
      bar.done();
      expect(s.out).toEqual([]);
    }
  });
});
