// The .github/workflows/kvgate.yml `kvgate init` writes: the full history (the gate diffs every
// commit of a pull request), the Action reading the policy from the base commit, and the SARIF upload
// to code scanning. Code scanning is off in private repositories without GitHub Advanced Security
// (and a fork's pull request gets no security-events token): the upload fails there, so it must never
// turn a passing gate red. The gate's own step decides the job.
import { VERSION } from "../version.js";

export function workflowYaml(defaultBranch: string): string {
  return `# kvgate: the fleet policy gate on every pull request and push (written by \`kvgate init\`).
name: kvgate
on:
  pull_request:
  push:
    branches: [${JSON.stringify(defaultBranch)}]
permissions:
  contents: read # checkout
  security-events: write # upload-sarif: code scanning alerts
  actions: read # upload-sarif reads this run's workflow (private repositories)
jobs:
  kvgate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0 # every commit of the range, and its merge base
      - id: kvgate
        # TODO: the repository and tag you install kvgate from (owner/kvgate@vX.Y.Z)
        uses: kvgate/kvgate@v${VERSION}
        with:
          sarif: kvgate.sarif
          # kvgate.yaml and .kvgateignore come from the base commit: a pull request cannot loosen its own policy.
          policy-from: base
      - name: Upload SARIF to code scanning
        # after a refusal too; never when the gate wrote no SARIF (it could not run)
        if: \${{ always() && steps.kvgate.outputs.sarif-file != '' }}
        # without code scanning (a private repository without Advanced Security, a fork) the upload fails: it must not fail the job
        continue-on-error: true
        uses: github/codeql-action/upload-sarif@v3
        with:
          sarif_file: \${{ steps.kvgate.outputs.sarif-file }}
          category: kvgate
`;
}
