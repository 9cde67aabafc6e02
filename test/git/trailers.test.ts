import { describe, expect, it } from "vitest";
import { parseTrailers } from "../../src/git/index.js";

describe("parseTrailers", () => {
  const cases: [string, string, { key: string; value: string }[]][] = [
    ["a waiver", "Bump\n\nKvgate-Waive: kv/oversized reason here\n", [{ key: "Kvgate-Waive", value: "kv/oversized reason here" }]],
    [
      "several, after a body",
      "Subj\n\nBody line.\nMore.\n\nKvgate-Waive: kv/oversized one\nKvgate-Verdict: pass tree=abc\n",
      [
        { key: "Kvgate-Waive", value: "kv/oversized one" },
        { key: "Kvgate-Verdict", value: "pass tree=abc" },
      ],
    ],
    [
      "continuation lines are unfolded",
      "S\n\nKvgate-Waive: kv/oversized long\n  reason text\n",
      [{ key: "Kvgate-Waive", value: "kv/oversized long reason text" }],
    ],
    ["CRLF messages", "S\r\n\r\nKvgate-Waive: kv/x why\r\n", [{ key: "Kvgate-Waive", value: "kv/x why" }]],
    ["the subject is never a trailer", "Kvgate-Waive: kv/x why\n", []],
    ["a body paragraph that is not all trailers", "S\n\nNote: this is prose\nand more prose here\n", []],
    [
      "a known key lets a mixed paragraph through",
      "S\n\nsome prose\nKvgate-Waive: kv/x why\n",
      [{ key: "Kvgate-Waive", value: "kv/x why" }],
    ],
    ["only the last paragraph counts", "S\n\nKvgate-Waive: kv/x early\n\nJust prose at the end.\n", []],
    [
      "trailing blank lines and comments ignored",
      "S\n\nSigned-off-by: A <a@b>\n# comment\n\n\n",
      [{ key: "Signed-off-by", value: "A <a@b>" }],
    ],
    ["no message", "", []],
  ];
  it.each(cases)("%s", (_name, message, expected) => {
    expect(parseTrailers(message)).toEqual(expected);
  });
});
