// The change model's public face: the engine imports from here.
export { openRepo, openTree, SHALLOW_HINT, type Repo, type Tree, type Shard } from "./repo.js";
export { parseTrailers } from "./trailers.js";
export { splitLines } from "./changes.js";
export type * from "./types.js";
export type { RangeCommit } from "./range.js";
