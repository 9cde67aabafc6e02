// The compose reader's public surface (docs/compose.md).
export { type CardsLine, type ComposeDeploy, type ComposeRead, type ComposeReadOptions } from "./records.js";
export { readCompose, readComposeFiles, asDeployFile } from "./read.js";
