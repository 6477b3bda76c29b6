#!/usr/bin/env bash
# Side-by-side benchmark of `skolkit serve` and Prism (@stoplight/prism-cli)
# mocking the same contract (interface B), plus skolkit's start-up time.
#
#   bash docs/bench.sh            # results in docs/performance.md come from this
#
# It installs what it needs: wrk (apt-get, when missing) and Prism (npm, into
# a temporary directory, or PRISM_DIR to reuse one). All traffic goes to
# 127.0.0.1. Environment: SK_PORT, PRISM_PORT (defaults 18080, 18081),
# DURATION (10s), THREADS (1), CONNS (16), STARTUP_RUNS (3), SK_GOMAXPROCS (1).
#
# On a 2-core machine the load generator and the server share the cores.
# By default wrk runs one thread and skolkit one P (GOMAXPROCS=1), so that
# each has a core; with both on both cores the tail latency measures the
# scheduler, not the server (docs/performance.md). Prism (Node.js) is single
# threaded either way. THREADS=2 SK_GOMAXPROCS=0 gives the old setting.
set -euo pipefail
cd "$(dirname "$0")/.."

SK_PORT=${SK_PORT:-18080}
PRISM_PORT=${PRISM_PORT:-18081}
DURATION=${DURATION:-10s}
THREADS=${THREADS:-1}
SK_GOMAXPROCS=${SK_GOMAXPROCS:-1} # 0: the Go default (every core)
CONNS=${CONNS:-16}
STARTUP_RUNS=${STARTUP_RUNS:-3}
# STARTUP_ONLY=1: measure the start-up only (wrk and Prism not installed).

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

say() { printf '== %s\n' "$*" >&2; }

# --- tools -------------------------------------------------------------------
if [ -z "${STARTUP_ONLY:-}" ] && ! command -v wrk >/dev/null; then
  say "installing wrk (apt-get)"
  apt-get update -qq && apt-get install -y -qq wrk >/dev/null
fi
command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl >/dev/null; }
PRISM_DIR=${PRISM_DIR:-$work/prism}
prism="$PRISM_DIR/node_modules/.bin/prism"
prism_error=""
if [ -z "${STARTUP_ONLY:-}" ] && [ ! -x "$prism" ]; then
  say "installing Prism (npm install --prefix $PRISM_DIR @stoplight/prism-cli)"
  if ! command -v npm >/dev/null; then
    prism_error="npm is not installed"
  elif ! npm install --prefix "$PRISM_DIR" --no-audit --no-fund @stoplight/prism-cli >"$work/npm.log" 2>&1; then
    prism_error="npm install failed: $(tail -3 "$work/npm.log" | tr '\n' ' ')"
  fi
fi

# --- skolkit -----------------------------------------------------------------
say "building skolkit and exporting the interface-B contract"
go build -o "$work/skolkit" ./cmd/skolkit
"$work/skolkit" spec -json register >"$work/register.json" # = go run ./cmd/skolkit spec -json register

# wait_for URL [HEADER]: poll until the URL answers 200 (at most 60 s).
wait_for() {
  local url=$1 deadline=$((SECONDS + 60))
  until curl -sf -o /dev/null "$url"; do
    [ $SECONDS -lt $deadline ] || { echo "no answer from $url" >&2; return 1; }
    sleep 0.05
  done
}

# startup SCENARIO: milliseconds from exec to the first answer of
# GET /api/v1/openapi.json, the median of STARTUP_RUNS runs.
startup() {
  local scenario=$1 times=()
  for _ in $(seq "$STARTUP_RUNS"); do
    local t0 t1
    t0=$(date +%s%N)
    "$work/skolkit" serve --addr "127.0.0.1:$SK_PORT" --scenario "$scenario" >/dev/null 2>&1 &
    local pid=$!
    until curl -sf -o /dev/null "http://127.0.0.1:$SK_PORT/api/v1/openapi.json"; do
      kill -0 "$pid" 2>/dev/null || { echo "skolkit serve --scenario $scenario exited" >&2; return 1; }
    done
    t1=$(date +%s%N)
    kill "$pid"; wait "$pid" 2>/dev/null || true
    times+=($(((t1 - t0) / 1000000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((STARTUP_RUNS + 1) / 2))p"
}

say "start-up to first answer (median of $STARTUP_RUNS)"
startup_default=$(startup default)
startup_large=$(startup large)
if [ -n "${STARTUP_ONLY:-}" ]; then
  echo "| start-up to first answer of GET /api/v1/openapi.json (median of $STARTUP_RUNS; $(date -u +%Y-%m-%d)) | ms |"
  echo "|---|---|"
  echo "| default scenario | $startup_default |"
  echo "| large scenario | $startup_large |"
  exit 0
fi

say "starting skolkit serve (default scenario) on 127.0.0.1:$SK_PORT"
if [ "$SK_GOMAXPROCS" != 0 ]; then export GOMAXPROCS=$SK_GOMAXPROCS; fi
"$work/skolkit" serve --addr "127.0.0.1:$SK_PORT" >"$work/skolkit.log" 2>&1 &
unset GOMAXPROCS
pids+=($!)
sk="http://127.0.0.1:$SK_PORT"
wait_for "$sk/api/v1/openapi.json"
client_id=$(awk '$1 == "client_id" {print $2}' "$work/skolkit.log")
client_secret=$(awk '$1 == "client_secret" {print $2}' "$work/skolkit.log")
token=$(curl -sf -X POST "$sk/oauth/token" -d grant_type=client_credentials \
  --data-urlencode "client_id=$client_id" --data-urlencode "client_secret=$client_secret" |
  sed -E 's/.*"access_token":"([^"]+)".*/\1/')
auth="Authorization: Bearer $token"
page=$(curl -sf -H "$auth" "$sk/api/v1/placements?limit=1000")
placement=$(printf '%s' "$page" | grep -o '"data":\[{"id":"[^"]*"' | sed -E 's/.*"id":"([^"]+)"/\1/')
# The organisation with the most placements, so that its page is full.
organisation=$(printf '%s' "$page" | grep -o '"placedAt":{"id":"[^"]*"' | sed -E 's/.*"id":"([^"]+)"/\1/' |
  sort | uniq -c | sort -rn | head -1 | awk '{print $2}')
[ -n "$placement" ] && [ -n "$organisation" ] || { echo "could not find a placement" >&2; exit 1; }

# bench NAME URL: wrk with the bearer header; prints "rps p50 p99 non2xx".
bench() {
  local name=$1 url=$2 out
  out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -H "$auth" "$url")
  printf '%s\n' "$out" >"$work/wrk-$name.txt"
  local rps p50 p99 bad
  rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  bad=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' <<<"$out")
  echo "$rps $p50 $p99 ${bad:-0}"
}

say "wrk -t$THREADS -c$CONNS -d$DURATION --latency: skolkit"
sk_byid=$(bench sk-byid "$sk/api/v1/placements/$placement")
sk_list=$(bench sk-list "$sk/api/v1/placements?organisation=$organisation&limit=100")

pr_byid="- - - -"
pr_list="- - - -"
if [ -z "$prism_error" ]; then
  say "starting Prism (static mode, log level warn) on 127.0.0.1:$PRISM_PORT"
  "$prism" mock -h 127.0.0.1 -p "$PRISM_PORT" -v warn "$work/register.json" >"$work/prism.log" 2>&1 &
  pids+=($!)
  pr="http://127.0.0.1:$PRISM_PORT" # Prism serves the paths without the server's /api/v1
  if wait_for "$pr/openapi.json"; then
    say "wrk -t$THREADS -c$CONNS -d$DURATION --latency: Prism"
    pr_byid=$(bench prism-byid "$pr/placements/$placement")
    pr_list=$(bench prism-list "$pr/placements?organisation=$organisation&limit=100")
  else
    prism_error="Prism did not start: $(tail -3 "$work/prism.log" | tr '\n' ' ')"
  fi
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.1f×", a / b; else print "-" }'; }
row() { # label skolkit prism
  read -r srps sp50 sp99 sbad <<<"$2"
  read -r prps pp50 pp99 pbad <<<"$3"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s/%s |\n' "$1" "$srps" "$sp50" "$sp99" "$prps" "$pp50" "$pp99" \
    "$(ratio "$srps" "$prps")" "$sbad" "$pbad"
}

echo
echo "wrk -t$THREADS -c$CONNS -d$DURATION --latency, default scenario, $(nproc) cores, skolkit GOMAXPROCS=${SK_GOMAXPROCS/#0/all}; $(date -u +%Y-%m-%d)"
echo
echo "| request | skolkit req/s | skolkit p50 | skolkit p99 | Prism req/s | Prism p50 | Prism p99 | skolkit/Prism | non-2xx (skolkit/Prism) |"
echo "|---|---|---|---|---|---|---|---|---|"
row "GET /api/v1/placements/{id}" "$sk_byid" "$pr_byid"
row "GET /api/v1/placements?organisation=…&limit=100" "$sk_list" "$pr_list"
echo
echo "| start-up to first answer of GET /api/v1/openapi.json (median of $STARTUP_RUNS) | ms |"
echo "|---|---|"
echo "| default scenario | $startup_default |"
echo "| large scenario | $startup_large |"
if [ -n "$prism_error" ]; then
  echo
  echo "Prism was not measured: $prism_error"
fi
