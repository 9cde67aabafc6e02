// The shown-text guards of the masking step: control characters escaped, key bodies never quoted,
// and the ordinary text of findings (model names, paths, flags, hashes, numbers) left as it is.
import { describe, expect, test } from "vitest";
import { escapeControls, escapeControlsInDocument, KeyWindows, maskKeyBodies } from "../../src/secrets/shown.js";

describe("escapeControls", () => {
  test.each([
    ["\u001b[2K\u001b[1A\rPASS", "\\e[2K\\e[1A\\rPASS"],
    ["a\nb\tc", "a\\nb\\tc"],
    ["bell\u0007 del\u007f c1\u009b", "bell\\x07 del\\x7f c1\\x9b"],
    ["rtl\u202eevil \u2066iso\u2069 zw\u200b", "rtl\\u{202e}evil \\u{2066}iso\\u{2069} zw\\u{200b}"],
    ["plain ü text — ok", "plain ü text — ok"],
  ])("%j → %j", (input, shown) => {
    expect(escapeControls(input)).toBe(shown);
  });
  test("a document keeps its newlines and tabs, nothing else", () => {
    expect(escapeControlsInDocument("a\tb\nc\u001b[0m\r\n")).toBe("a\tb\nc\\e[0m\\r\n");
  });
});

describe("maskKeyBodies", () => {
  test.each([
    "Qwen/Qwen2.5-32B-Instruct-AWQ",
    "TheBloke/Llama-2-70B-Chat-GPTQ",
    "scripts/frank-archon.env",
    "--gpu-memory-utilization 0.92 --max-model-len 40960",
    "sha256:0123456789ab 3f786850e387550fdab836ed7e6dc881de23001b",
    "8053063680 bytes for 40960 tokens",
    "AKIA…LE", // already redacted
  ])("leaves %j as it is", (text) => {
    expect(maskKeyBodies(text)).toBe(text);
  });
  test("a key-shaped base64 run is redacted to its first 4 and last 2 characters", () => {
    expect(maskKeyBodies('line 3: "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDm"')).toBe('line 3: "MIIE…Dm"');
  });
  test("any run holding 8 characters of a known secret is redacted, even a short one", () => {
    const keys = new KeyWindows();
    keys.add("-----BEGIN PRIVATE KEY-----\nabcdEFGH12345678zz==\n-----END PRIVATE KEY-----");
    expect(maskKeyBodies('key "EFGH1234" and "zz==" and "EFGH123"', keys)).toBe('key "********" and "zz==" and "EFGH123"');
  });
});

test("a path is masked by the known keys only, never by its shape", () => {
  const path = "scripts/Qwen25Coder32BInstructAWQ8bit.env";
  expect(maskKeyBodies(path, undefined, false)).toBe(path);
  expect(maskKeyBodies("Qwen25Coder32BInstructAWQ8bit")).toBe("Qwen…it");
});
