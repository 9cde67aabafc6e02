// The compose reader's public surface (contract section 14).
export { COMPOSE_GLOB, type CardsLine, type ComposeDeploy, type ComposeProblem, type ComposeRead, type ComposeReadOptions, type ComposeSource, type GpuRequest, type SourceFile } from "./types.js";
export { readCompose, readComposeFiles, asPlaybookRead } from "./read.js";
export { interpolate, type Lookup, type VarValue, type Interpolated } from "./interpolate.js";
