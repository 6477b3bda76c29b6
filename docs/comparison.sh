#!/usr/bin/env bash
# The figures of docs/comparison.md: a newcomer's first minutes with skolkit,
# Prism and WireMock on this machine. For each tool it measures the install
# (time and size on disk), the start-up (from exec to the first answer) and
# what the first request a client of the service makes is answered:
# GET /api/v1/placements?limit=2 with a bearer token.
#
#   bash docs/comparison.sh
#
# Installs Prism (@stoplight/prism-cli) and WireMock (the npm package
# "wiremock", which ships WireMock's standalone jar; it needs Java) with npm
# into a temporary directory. Schemathesis is on PyPI only, which this
# machine cannot reach; docs/comparison.md compares it from its documentation.
# Environment: RUNS (start-ups to take the median of, 3), PORT (18090).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
PORT=${PORT:-18090}
work=$(mktemp -d)
pid=""
# stop: ends the tool started last with its children (npm's wiremock starts
# java, Prism's CLI a node process), then waits for it.
stop() {
  [ -z "$pid" ] || kill -- "-$pid" 2>/dev/null || true
  wait 2>/dev/null || true
  pid=""
  # until the port is free again (a JVM takes a moment to go)
  while curl -s -o /dev/null "http://127.0.0.1:$PORT/"; do sleep 0.1; done
}
cleanup() {
  stop
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
say() { printf '== %s\n' "$*" >&2; }
ms() { echo $(($(date +%s%N) / 1000000)); }

# startup NAME URL CMD...: the median over RUNS of the milliseconds from exec
# to the first HTTP answer of URL (any status).
startup() {
  local name=$1 url=$2 times=()
  shift 2
  for _ in $(seq "$RUNS"); do
    local t0 t1
    t0=$(ms)
    setsid "$@" >"$work/$name.log" 2>&1 &
    pid=$!
    until curl -s -o /dev/null "$url"; do
      kill -0 "$pid" 2>/dev/null || { echo "$name exited: $(tail -3 "$work/$name.log")" >&2; return 1; }
      sleep 0.02
    done
    t1=$(ms)
    stop
    times+=($((t1 - t0)))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p"
}

# first NAME URL PREFIX CMD...: starts the tool, sends the first request a
# client makes (to PREFIX/placements), prints its status and the start of
# the body, stops the tool.
first() {
  local name=$1 url=$2 prefix=$3
  shift 3
  setsid "$@" >"$work/$name.log" 2>&1 &
  pid=$!
  until curl -s -o /dev/null "$url"; do
    kill -0 "$pid" 2>/dev/null || { echo "$name exited: $(tail -3 "$work/$name.log")" >&2; return 1; }
    sleep 0.05
  done
  local token=${TOKEN:-anything}
  if [ "$token" = fetch ]; then
    token=$(curl -sf -X POST "http://127.0.0.1:$PORT/oauth/token" -d grant_type=client_credentials \
      -d client_id=skolkit-client -d client_secret=skolkit-secret | sed -E 's/.*"access_token":"([^"]+)".*/\1/')
  fi
  curl -s -o "$work/$name.body" -w '%{http_code}' -H "Authorization: Bearer $token" \
    "http://127.0.0.1:$PORT$prefix/placements?limit=2&startDate.onOrBefore=2026-11-02"
  printf '  %s\n' "$(head -c 160 "$work/$name.body" | tr '\n' ' ')"
  stop
}

say "installing (npm, into $work)"
t0=$(ms)
npm install --prefix "$work/prism" --no-audit --no-fund @stoplight/prism-cli@5 >"$work/npm-prism.log" 2>&1
prism_install=$(($(ms) - t0))
mkdir -p "$work/wiremock" && echo '{}' >"$work/wiremock/package.json"
t0=$(ms)
(cd "$work/wiremock" && npm install --no-audit --no-fund wiremock@3 >"$work/npm-wiremock.log" 2>&1)
wiremock_install=$(($(ms) - t0))
t0=$(ms)
GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$work/skolkit" ./cmd/skolkit
skolkit_build=$(($(ms) - t0))
prism="$work/prism/node_modules/.bin/prism"
wiremock="$work/wiremock/node_modules/.bin/wiremock"
"$work/skolkit" spec register >"$work/register.yaml"

say "start-up to first answer (median of $RUNS)"
sk_start=$(startup skolkit "http://127.0.0.1:$PORT/healthz" "$work/skolkit" serve --addr "127.0.0.1:$PORT")
prism_start=$(startup prism "http://127.0.0.1:$PORT/" "$prism" mock -p "$PORT" "$work/register.yaml")
wiremock_start=$(startup wiremock "http://127.0.0.1:$PORT/__admin/mappings" "$wiremock" --port "$PORT")

say "the first request: GET /api/v1/placements?limit=2&startDate.onOrBefore=2026-11-02 (Prism: /placements)"
# skolkit wants a token from its token endpoint: a client's first call.
sk_first=$(TOKEN=fetch first skolkit "http://127.0.0.1:$PORT/healthz" /api/v1 "$work/skolkit" serve --addr "127.0.0.1:$PORT")
# Prism serves the contract's paths without the server URL's /api/v1.
prism_first=$(first prism "http://127.0.0.1:$PORT/" "" "$prism" mock -p "$PORT" "$work/register.yaml")
wiremock_first=$(first wiremock "http://127.0.0.1:$PORT/__admin/mappings" /api/v1 "$wiremock" --port "$PORT")

size() { du -sh "$1" | cut -f1; }
cat <<EOT

| | skolkit | Prism | WireMock |
|---|---|---|---|
| install | go build, module cache warm: $skolkit_build ms | npm: $prism_install ms | npm: $wiremock_install ms |
| size on disk | $(size "$work/skolkit") (one static binary) | $(size "$work/prism/node_modules") (node_modules) | $(size "$work/wiremock/node_modules") (node_modules, the jar) + a Java runtime |
| start-up to first answer | $sk_start ms | $prism_start ms | $wiremock_start ms |
| first request answered | $sk_first | $prism_first | $wiremock_first |

versions: $(go version | cut -d' ' -f3), prism $("$prism" --version 2>/dev/null), wiremock npm $(cd "$work/wiremock" && node -p 'require("wiremock/package.json").version'), $(java -version 2>&1 | head -1)
machine: $(nproc) cores, $(uname -sm), load average $(cut -d' ' -f1-3 /proc/loadavg)
EOT
