// Bytes of a snapshot to text: strict UTF-8, and a NUL byte means a binary file. Every file the gate
// reads as text (env files, ledger facts, playbooks, kvgate.yaml) is decoded here, so a file it
// cannot read is the same problem wherever it shows up.
export interface DecodedFile {
  text: string | null;
  /** Why the file could not be read as text (non-UTF-8, NUL bytes). */
  problem: string | null;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** `what` names the kind of file a NUL byte shows it is not ("an env file", "YAML"). */
export function decode(buf: Buffer | null, what = "an env file"): DecodedFile {
  if (buf === null) return { text: null, problem: null };
  if (buf.includes(0)) return { text: null, problem: `the file holds a NUL byte: it is binary, not ${what}; restore it as text` };
  try {
    return { text: decoder.decode(buf), problem: null };
  } catch {
    return { text: null, problem: "the file is not valid UTF-8; save it as UTF-8" };
  }
}
