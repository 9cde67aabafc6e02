// The compose reader's public surface (contract section 14).
export { type CardsLine, type ComposeDeploy, type ComposeRead, type ComposeReadOptions } from "./records.js";
export { readCompose, readComposeFiles, asDeployFile } from "./read.js";
