#!/usr/bin/env bash
# Runs `skolkit exam` against sync programs built on the real clients the
# project knows, the way their users would write them (compat/exam/):
#   the vendor's generated Python SDK  github.com/meitner-se/api-client-python   (interface A)
#   Delph1/python-ss12000client        (interface B; once as published, once with
#                                       its urljoin replaced, see below)
#   Delph1/node-ss12000client          (interface B)
# Each is examined under both tasks, every scene, with JSON and HTML reports
# in $OUT. None of the clients is part of skolkit or copied into this
# repository: a client not found at its path below is SKIPPED with a message,
# and the script exits 0, so CI (which cannot fetch them) is unaffected.
# docs/compatibility.md ("Real clients under skolkit exam") has the commands
# and the results.
#
# Environment:
#   SKOLKIT                 the skolkit binary (default: skolkit on PATH, else go build)
#   SDK_DIR                 checkout of api-client-python (default /tmp/peers/api-client-python);
#                           its Python needs httpx and pydantic 2 (see docs/compatibility.md)
#   SDK_PYTHONPATH          extra PYTHONPATH for the SDK's dependencies (default /tmp/sdkenv/site:compat/shim)
#   SS12K_PY_CLIENT_DIR     checkout of python-ss12000client (default /tmp/peers/python-ss12000client); needs requests
#   SS12K_NODE_CLIENT_DIR   checkout of node-ss12000client (default /tmp/peers/node-ss12000client); needs node 18+
#   PYTHON                  the Python to run them with (default python3)
#   OUT                     where the reports go (default /tmp/exam-clients)
#   TASKS                   the tasks (default "full-sync incremental-sync")
#
# Exit status: 0 always when a client is skipped or examined; the exam's own
# exit status for each is printed (0 clean, 1 client faults, 2 could not judge).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
SDK_DIR=${SDK_DIR:-/tmp/peers/api-client-python}
SDK_PYTHONPATH=${SDK_PYTHONPATH:-/tmp/sdkenv/site:$ROOT/compat/shim}
PY_DIR=${SS12K_PY_CLIENT_DIR:-/tmp/peers/python-ss12000client}
NODE_DIR=${SS12K_NODE_CLIENT_DIR:-/tmp/peers/node-ss12000client}
PY=${PYTHON:-python3}
OUT=${OUT:-/tmp/exam-clients}
TASKS=${TASKS:-"full-sync incremental-sync"}
mkdir -p "$OUT"

SK=${SKOLKIT:-}
if [ -z "$SK" ]; then
  if command -v skolkit >/dev/null; then SK=skolkit
  else SK="$OUT/skolkit"; (cd "$ROOT" && go build -o "$SK" ./cmd/skolkit) || { echo "SKIP: cannot build skolkit"; exit 0; }
  fi
fi

examine() { # name, then the client command
  local name=$1; shift
  for task in $TASKS; do
    "$SK" exam -q --task "$task" --report "json=$OUT/$name-$task.json" --report "html=$OUT/$name-$task.html" -- "$@" \
      > "$OUT/$name-$task.txt" 2>&1
    local code=$?
    echo "$name, $task: exit $code (report: $OUT/$name-$task.txt)"
    grep -E '^--- FAIL|^\[' "$OUT/$name-$task.txt" | sed 's/^/    /'
  done
}

if [ -f "$SDK_DIR/src/meitner/__init__.py" ] && PYTHONPATH="$SDK_DIR/src:$SDK_PYTHONPATH" "$PY" -c 'import meitner' 2>/dev/null; then
  PYTHONPATH="$SDK_DIR/src:$SDK_PYTHONPATH" examine vendor-sdk "$PY" "$HERE/exam/sdk_sync.py"
else
  echo "SKIP: the vendor SDK is not importable from $SDK_DIR/src with PYTHONPATH $SDK_PYTHONPATH (set SDK_DIR, SDK_PYTHONPATH; docs/compatibility.md)"
fi

if [ -f "$PY_DIR/ss12000client.py" ] && "$PY" -c 'import requests' 2>/dev/null; then
  PYTHONPATH="$PY_DIR" examine python-ss12000client "$PY" "$HERE/exam/py_ss12000_sync.py"
  SS12K_PATCH_URLJOIN=1 PYTHONPATH="$PY_DIR" examine python-ss12000client-urljoin-patched "$PY" "$HERE/exam/py_ss12000_sync.py"
else
  echo "SKIP: python-ss12000client is not at $PY_DIR (set SS12K_PY_CLIENT_DIR), or $PY has no requests"
fi

if [ -f "$NODE_DIR/ss12000-client.js" ] && command -v node >/dev/null; then
  examine node-ss12000client node "$HERE/exam/node_ss12000_sync.js" "$NODE_DIR"
else
  echo "SKIP: node-ss12000client is not at $NODE_DIR (set SS12K_NODE_CLIENT_DIR), or there is no node"
fi
exit 0
