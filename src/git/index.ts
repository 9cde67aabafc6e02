// The change model's public face: the engine imports from here.
export { openRepo, openTree, type Repo, type Shard } from "./repo.js";
export { parseTrailers } from "./trailers.js";

export type * from "./types.js";
