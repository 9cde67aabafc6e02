// CommitInfo from one `git log` call: many commits, one process.
import type { CommitInfo } from "./types.js";
import type { GitRunner } from "./exec.js";
import { parseTrailers } from "./trailers.js";

const FORMAT = "--format=%H%x00%P%x00%an <%ae>%x00%B%x00";

/** The commits of `revArgs` (e.g. `["--reverse", "A..B"]` or `["--no-walk=unsorted", sha]`). */
export async function readCommits(git: GitRunner, revArgs: string[]): Promise<CommitInfo[]> {
  const out = await git.run(["log", "--no-color", "--encoding=UTF-8", FORMAT, ...revArgs, "--"]);
  return parseCommitLog(out);
}

function parseCommitLog(out: string): CommitInfo[] {
  const fields = out.split("\0");
  const commits: CommitInfo[] = [];
  for (let i = 0; i + 3 < fields.length; i += 4) {
    const sha = (fields[i] ?? "").trim();
    if (sha === "") break;
    commits.push(commitFromFields(sha, fields[i + 1] ?? "", fields[i + 2] ?? "", fields[i + 3] ?? ""));
  }
  return commits;
}

/** One commit from the `%H`, `%P`, `%an <%ae>` and `%B` fields. */
export function commitFromFields(sha: string, parents: string, author: string, message: string): CommitInfo {
  return {
    sha,
    parents: parents.split(" ").filter(Boolean),
    author,
    subject: subjectOf(message),
    message,
    trailers: parseTrailers(message),
  };
}

/** Like git's %s: the first paragraph, its lines joined by spaces. */
function subjectOf(message: string): string {
  const text = message.trim();
  if (!text.includes("\n")) return text; // a one-line message is its own subject
  const para: string[] = [];
  for (const line of message.split("\n")) {
    if (line.trim() === "") {
      if (para.length > 0) break;
      continue;
    }
    para.push(line.trim());
  }
  return para.join(" ");
}
