// The .github/workflows/kvgate.yml `kvgate init` writes: the full history (the gate diffs every
// commit of a pull request), the Action, and the SARIF upload to code scanning.
import { VERSION } from "../version.js";

export function workflowYaml(defaultBranch: string): string {
  return `# kvgate: the fleet policy gate on every pull request and push (written by \`kvgate init\`).
name: kvgate
on:
  pull_request:
  push:
    branches: [${JSON.stringify(defaultBranch)}]
permissions:
  contents: read
  security-events: write # upload-sarif
jobs:
  kvgate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0 # every commit of the range, and its merge base
      - id: kvgate
        uses: kvgate/kvgate@v${VERSION}
        with:
          sarif: kvgate.sarif
          # policy-from: base  # once kvgate.yaml is on ${defaultBranch}: a pull request cannot loosen its own policy
      - if: \${{ always() && steps.kvgate.outputs.sarif-file != '' }}
        uses: github/codeql-action/upload-sarif@v3
        with:
          sarif_file: \${{ steps.kvgate.outputs.sarif-file }}
          category: kvgate
`;
}
