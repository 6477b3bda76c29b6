#!/usr/bin/env bash
# The cost of skolkit tap: wrk against `skolkit serve` directly, through a
# plain httputil.ReverseProxy that judges nothing (docs/plainproxy: the
# standard transport tuned for kept-alive connections), and through
# `skolkit tap` judging both sides, in the same run. GET by id of one
# placement, ROUNDS rounds alternating the three, the median of each
# figure; then a long run through the tap over many operations and records
# that samples the tap's memory (it must stay bounded).
#
#   bash docs/tap-bench.sh          # the figures in docs/performance.md come from this
#
# Environment: DURATION (10s a measurement), ROUNDS (3), CONNS (16),
# THREADS (1), LONG (60s; 0 skips the long run), TAP_ARGS (more flags for
# skolkit tap, e.g. "--judge-share 1"), PORT (18090: serve,
# +1 the plain proxy, +2 the tap), BIN (a directory holding skolkit and
# plainproxy already built: go build -o BIN/skolkit ./cmd/skolkit; go
# build -o BIN/plainproxy ./docs/plainproxy).
#
# Do not run it at a real-time priority (chrt -f) to stand for a quiet
# host: Go's runtime spins for work at that priority and starves wrk and
# the machine (seen here: the run stalled and took both cores for
# minutes). On a busy host, compare the processor time per request, which
# the load moves little, and take more rounds.
# It needs wrk (Debian: apt-get install -y wrk) and curl; without wrk it
# says so and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v wrk >/dev/null; then
  echo "docs/tap-bench.sh: skipped: wrk is not installed (Debian, Ubuntu: apt-get install -y wrk)" >&2
  exit 0
fi
command -v curl >/dev/null || { echo "docs/tap-bench.sh: curl is needed" >&2; exit 2; }

DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-16}
THREADS=${THREADS:-1}
LONG=${LONG:-60s}
PORT=${PORT:-18090}
serve_port=$PORT plain_port=$((PORT + 1)) tap_port=$((PORT + 2))

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
say() { printf '== %s\n' "$*" >&2; }

wait_for() { # URL PID: poll until the URL answers (at most 60 s) while PID runs
  local deadline=$((SECONDS + 60))
  until curl -s -o /dev/null "$1"; do
    kill -0 "$2" 2>/dev/null || { echo "the process for $1 exited (a port in use? see PORT)" >&2; exit 1; }
    [ $SECONDS -lt $deadline ] || { echo "no answer from $1" >&2; exit 1; }
    sleep 0.05
  done
  kill -0 "$2" 2>/dev/null || { echo "the process for $1 exited (a port in use? see PORT)" >&2; exit 1; }
}

if [ -n "${BIN:-}" ]; then
  cp "$BIN/skolkit" "$BIN/plainproxy" "$work/"
else
  say "building skolkit and the plain proxy"
  go build -o "$work/skolkit" ./cmd/skolkit
  go build -o "$work/plainproxy" ./docs/plainproxy
fi

say "starting skolkit serve, the plain proxy and skolkit tap"
"$work/skolkit" serve --addr "127.0.0.1:$serve_port" >"$work/serve.log" 2>&1 &
serve_pid=$!
pids+=($serve_pid)
wait_for "http://127.0.0.1:$serve_port/healthz" $serve_pid
"$work/plainproxy" --listen "127.0.0.1:$plain_port" --target "http://127.0.0.1:$serve_port" 2>"$work/plain.log" &
plain_pid=$!
pids+=($plain_pid)
"$work/skolkit" tap --listen "127.0.0.1:$tap_port" --target "http://127.0.0.1:$serve_port" \
  --report "json=$work/tap.json" ${TAP_ARGS:-} >"$work/tap.log" 2>&1 &
tap_pid=$!
pids+=($tap_pid)
wait_for "http://127.0.0.1:$plain_port/healthz" $plain_pid
wait_for "http://127.0.0.1:$tap_port/__tap/report" $tap_pid

serve="http://127.0.0.1:$serve_port" plain="http://127.0.0.1:$plain_port" tapurl="http://127.0.0.1:$tap_port"
client_id=$(awk '$1 == "client_id" {print $2}' "$work/serve.log")
client_secret=$(awk '$1 == "client_secret" {print $2}' "$work/serve.log")
# The token through the tap, so that it knows the client.
token=$(curl -sf -X POST "$tapurl/oauth/token" -d grant_type=client_credentials \
  --data-urlencode "client_id=$client_id" --data-urlencode "client_secret=$client_secret" |
  sed -E 's/.*"access_token":"([^"]+)".*/\1/')
auth="Authorization: Bearer $token"
placement=$(curl -sf -H "$auth" "$serve/api/v1/placements?limit=1" | grep -o '"data":\[{"id":"[^"]*"' | sed -E 's/.*"id":"([^"]+)"/\1/')
[ -n "$placement" ] || { echo "could not find a placement" >&2; exit 1; }
path="/api/v1/placements/$placement"

ms() { # a wrk latency (850.00us, 1.23ms, 2.00s) in milliseconds
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000; printf "%.2f", n }'
}
rss() { awk '/^VmRSS:/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; } # MiB
cputicks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # user + system, in clock ticks
tick_us=$((1000000 / $(getconf CLK_TCK)))
hwm() { awk '/^VmHWM:/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; } # MiB

# bench NAME BASE PID: one wrk run; appends "rps p50 p99 rss non2xx cpu" to
# $work/NAME, cpu being the processor time of PID per request in µs (of the
# server for direct).
bench() {
  local out rps p50 p99 bad mem=- c0 c1 n
  c0=$(cputicks "$3")
  out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -H "$auth" "$2$path")
  c1=$(cputicks "$3")
  n=$(awk '/requests in/ {print $1}' <<<"$out")
  rps=$(awk '/^Requests\/sec:/ {printf "%.0f", $2}' <<<"$out")
  p50=$(ms "$(awk '$1 == "50%" {print $2}' <<<"$out")")
  p99=$(ms "$(awk '$1 == "99%" {print $2}' <<<"$out")")
  bad=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' <<<"$out")
  [ "$1" = direct ] || mem=$(rss "$3")
  echo "$rps $p50 $p99 $mem ${bad:-0} $(((c1 - c0) * tick_us / n))" >>"$work/$1"
}

say "warming up"
for base in "$serve" "$plain" "$tapurl"; do wrk -t1 -c"$CONNS" -d2s -H "$auth" "$base$path" >/dev/null; done

# The plain proxy and the tap run back to back in each round, in turns
# first, so that each round's pair saw the same machine; their ratio is
# taken round by round.
for round in $(seq "$ROUNDS"); do
  say "round $round of $ROUNDS: wrk -t$THREADS -c$CONNS -d$DURATION --latency GET $path"
  bench direct "$serve" "$serve_pid"
  if [ $((round % 2)) = 1 ]; then
    bench plain "$plain" "$plain_pid"
    bench tap "$tapurl" "$tap_pid"
  else
    bench tap "$tapurl" "$tap_pid"
    bench plain "$plain" "$plain_pid"
  fi
done

median() { # FILE COLUMN
  awk -v c="$2" '{print $c}' "$1" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}
stats=$(curl -sf "$tapurl/__tap/stats")
field() { printf '%s' "$stats" | grep -o "\"$1\": *[0-9]*" | head -1 | grep -o '[0-9]*$'; }

echo
echo "wrk -t$THREADS -c$CONNS -d$DURATION --latency, GET $path (default scenario), $(nproc) cores, median of $ROUNDS rounds; $(date -u +%Y-%m-%d)"
echo
echo "| | req/s | p50 ms | p99 ms | CPU µs/request | RSS MiB | non-2xx |"
echo "|---|---|---|---|---|---|---|"
for name in direct plain tap; do
  label=$name
  [ $name = direct ] && label="direct (skolkit serve; CPU: the server's)"
  [ $name = plain ] && label="plain httputil.ReverseProxy"
  [ $name = tap ] && label="skolkit tap"
  echo "| $label | $(median "$work/$name" 1) | $(median "$work/$name" 2) | $(median "$work/$name" 3) | $(median "$work/$name" 6) | $(median "$work/$name" 4) | $(median "$work/$name" 5) |"
done
echo
# Round by round: the tap's throughput over the plain proxy's, and its p99
# less the plain proxy's.
paste "$work/tap" "$work/plain" | awk '{printf "%.4f %.2f\n", $1 / $7, $3 - $9}' >"$work/pairs"
awk -v r="$(median "$work/pairs" 1)" -v d="$(median "$work/pairs" 2)" -v n="$ROUNDS" \
  -v held="$(awk '$1 >= 0.8 && $2 <= 2 {k++} END {print k + 0}' "$work/pairs")" \
  'BEGIN { printf "tap / plain throughput, median of the rounds: %.0f %% (target >= 80 %%); tap p99 - plain p99, median: %+.2f ms (target <= 2 ms); both targets held in %d of %d rounds\n", 100 * r, d, held, n }'
echo "per round (req/s p50 p99 RSS non-2xx CPU): plain $(paste -sd '|' "$work/plain"); tap $(paste -sd '|' "$work/tap")"
echo "the tap so far: $(field forwarded) requests forwarded, $(field judged) judged, $(field dropped) not judged (its judge behind)"

if [ "$LONG" != 0 ]; then
  say "long run through the tap: $LONG over many records and operations, the tap's memory every 5 s"
  # Every record of a few kinds by id, and their lists and pages.
  for kind in placements persons groups organisations duties activities; do
    curl -sf -H "$auth" "$serve/api/v1/$kind?limit=1000" | grep -o '"id":"[0-9a-f-]\{36\}"' | sed -E "s#\"id\":\"([^\"]+)\"#/api/v1/$kind/\1#"
    printf '/api/v1/%s?limit=%s\n' "$kind" 5 "$kind" 50 "$kind" 200
  done | sort -u >"$work/paths"
  cat >"$work/paths.lua" <<EOF
paths = {}
for line in io.lines("$work/paths") do paths[#paths + 1] = line end
i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1])
end
EOF
  samples=()
  wrk -t"$THREADS" -c"$CONNS" -d"$LONG" -s "$work/paths.lua" -H "$auth" "$tapurl" >"$work/long.txt" &
  wrk_pid=$!
  while kill -0 "$wrk_pid" 2>/dev/null; do
    samples+=("$(rss "$tap_pid")")
    sleep 5
  done
  wait "$wrk_pid" || true
  stats=$(curl -sf "$tapurl/__tap/stats")
  echo
  echo "long run: $(wc -l <"$work/paths") distinct paths, $(awk '/^Requests\/sec:/ {printf "%.0f", $2}' "$work/long.txt") req/s through the tap for $LONG"
  echo "tap RSS every 5 s (MiB): ${samples[*]}; peak $(hwm "$tap_pid") MiB"
  echo "the tap in all: $(field forwarded) requests forwarded, $(field judged) judged, $(field dropped) not judged"
fi
