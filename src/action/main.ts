// The Action's entry (bundled into dist/action/index.js). Anything that stops the gate from running
// fails the step: a gate that cannot run must never look like a pass.
import * as core from "@actions/core";
import { GateError } from "../errors.js";
import { runAction } from "./run.js";
import { shownError } from "../cli/shown-error.js";

function failClosed(e: unknown): void {
  core.setOutput("verdict", "error");
  if (e instanceof GateError) {
    const details = e.details.map((d) => `\n  ${shownError(d)}`).join("");
    core.setFailed(`kvgate could not run: ${shownError(e.message)}${details}${e.hint ? `\n  fix: ${shownError(e.hint)}` : ""}`);
    return;
  }
  const err = e as Error;
  core.setFailed(`kvgate: internal error: ${shownError(err?.message ?? String(e))} (the gate failed closed)`);
  if (err?.stack) core.debug(err.stack);
}

runAction(core, process.env).catch(failClosed);
