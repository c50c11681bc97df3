#!/usr/bin/env bash
# Runs one k6 scenario of load/ against a Cardlink that is already running; starts nothing itself. The
# scenario runs on load/runner, k6's API in Node (k6 itself runs the same scripts unchanged).
#   load/run.sh api-crud|test-transactions|mid-insights [-e NAME=VALUE]… [--summary-export FILE]
# BASE_URL defaults to http://localhost:3000; ADMIN_TOKEN, when unset, is read from the credentials file
# `npm start` keeps in DATA_DIR (./.data by default). Other variables: load/README.md.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
scenario="${1:-}"
case "$scenario" in
  api-crud | test-transactions | mid-insights) shift ;;
  *)
    echo "usage: load/run.sh api-crud|test-transactions|mid-insights [-e NAME=VALUE]… [--summary-export FILE]" >&2
    exit 2
    ;;
esac

export BASE_URL="${BASE_URL:-http://localhost:3000}"
if [ -z "${ADMIN_TOKEN:-}" ]; then
  credentials="${DATA_DIR:-.data}/credentials.json"
  if [ ! -r "$credentials" ]; then
    echo "ADMIN_TOKEN: set it to the admin token Cardlink printed (no $credentials to read it from)" >&2
    exit 1
  fi
  ADMIN_TOKEN="$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).adminToken)' "$credentials")"
  export ADMIN_TOKEN
fi

exec node "$here/runner/main.js" run "$@" "$here/$scenario.js"
