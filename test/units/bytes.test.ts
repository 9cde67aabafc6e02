import { describe, expect, test } from "vitest";
import { parseBytes, parseMib, parseTokens, parseVllmInt, formatBytes, GiB } from "../../src/units/bytes.js";

describe("parseBytes (the gate's own reader: plain bytes, IEC and SI)", () => {
  test.each([
    ["8053063680", 8053063680],
    ["5.5GiB", 5.5 * GiB],
    ["512MiB", 512 * 1024 ** 2],
    ["22GB", 22e9],
    ["22G", 22 * GiB],
    ["22g", 22e9],
    ["1 TiB", 1024 ** 4],
    ["0.5GiB", GiB / 2],
  ])("%s → %d", (text, bytes) => {
    expect(parseBytes(text)).toEqual({ ok: true, value: bytes });
  });
  test.each(["", "GiB", "5.5", "-1GiB", "22Gb?", "22 furlongs", "1.5.2GiB"])("%j is refused with a message", (text) => {
    const r = parseBytes(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/byte|unit|integer/);
  });
  test("22GB and 22GiB mean different numbers", () => {
    const si = parseBytes("22GB");
    const iec = parseBytes("22GiB");
    expect(si.ok && iec.ok && iec.value - si.value).toBe(22 * GiB - 22e9);
  });
});

describe("parseVllmInt (vLLM's human_readable_int)", () => {
  test.each([
    ["32768", 32768],
    ["32k", 32000],
    ["32K", 32768],
    ["1.5k", 1500],
    ["22G", 22 * GiB],
    ["2g", 2e9],
  ])("%s → %d", (text, n) => expect(parseVllmInt(text)).toEqual({ ok: true, value: n }));
  test.each(["22GiB", "22GB", "22.5G", "25.6K", "-5", "1e9", ""])("%j is what vLLM refuses at boot", (text) => {
    const r = parseVllmInt(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/K\/M\/G\/T|integers only/);
  });
});

describe("parseTokens and parseMib", () => {
  test("tokens", () => {
    expect(parseTokens("40960")).toEqual({ ok: true, value: 40960 });
    expect(parseTokens("32K")).toEqual({ ok: true, value: 32768 });
    expect(parseTokens("0").ok).toBe(false);
    expect(parseTokens("-4096").ok).toBe(false);
    expect(parseTokens("4096.5").ok).toBe(false);
  });
  test("MiB", () => {
    expect(parseMib("44928")).toEqual({ ok: true, value: 44928 });
    expect(parseMib("111.98")).toEqual({ ok: true, value: 111.98 });
    expect(parseMib("-48").ok).toBe(false);
    expect(parseMib("48MiB").ok).toBe(false);
  });
  test("formatBytes", () => {
    expect(formatBytes(7.5 * GiB)).toBe("7.5 GiB");
    expect(formatBytes(147456)).toBe("144 KiB");
    expect(formatBytes(100)).toBe("100 B");
  });
});
