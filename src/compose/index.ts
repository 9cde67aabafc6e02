// The compose reader's public surface (contract section 14).
export { type CardsLine, type ComposeDeploy, type ComposeRead, type ComposeReadOptions, type ComposeSource } from "./types.js";
export { readCompose, readComposeFiles, asPlaybookRead } from "./read.js";
