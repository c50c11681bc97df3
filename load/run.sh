#!/usr/bin/env bash
# Runs one k6 scenario of load/ against a Cardlink that is already running; starts nothing itself.
#   load/run.sh api-crud|test-transactions|mid-insights [k6 run options…]
# BASE_URL defaults to http://localhost:3000; ADMIN_TOKEN, when unset, is read from the credentials file
# `npm start` keeps in DATA_DIR (./.data by default). Other variables: load/README.md.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
scenario="${1:-}"
case "$scenario" in
  api-crud | test-transactions | mid-insights) shift ;;
  *)
    echo "usage: load/run.sh api-crud|test-transactions|mid-insights [k6 run options…]" >&2
    exit 2
    ;;
esac

k6="${K6:-}"
if [ -z "$k6" ]; then
  for candidate in "$(command -v k6 || true)" "$(go env GOPATH 2>/dev/null || true)/bin/k6" "$HOME/go/bin/k6"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then k6="$candidate" && break; fi
  done
fi
if [ -z "$k6" ] || [ ! -x "$k6" ]; then
  echo "k6 not found: build it with 'go install go.k6.io/k6@latest' (it lands in \$(go env GOPATH)/bin), or set K6=/path/to/k6" >&2
  exit 1
fi

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

exec "$k6" run "$@" "$here/$scenario.js"
