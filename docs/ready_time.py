#!/usr/bin/env python3
"""Time `skolkit serve` from its exec to its first answer, as docs/performance.md does.

    python3 docs/ready_time.py BINARY SCENARIO [RUNS] [PORT]

Starts BINARY serve --scenario SCENARIO on 127.0.0.1:PORT (default 18114), sends
GET /api/v1/openapi.json every 2 ms until the first 200, and prints the wall time,
the server's user and system CPU time, minor page faults and peak resident memory at
that moment (from /proc, so Linux only), then stops it. RUNS (default 1) repeats
that, half a second apart. Standard library only.
"""
import os
import subprocess
import sys
import time
import urllib.request


def once(binary, scenario, port):
    t0 = time.monotonic()
    p = subprocess.Popen([binary, "serve", "--addr", "127.0.0.1:%d" % port, "--scenario", scenario],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = "http://127.0.0.1:%d/api/v1/openapi.json" % port
    try:
        while True:
            if p.poll() is not None:
                sys.exit("skolkit serve exited with %d before it answered" % p.returncode)
            try:
                with urllib.request.urlopen(url, timeout=5) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            time.sleep(0.002)
        ready = time.monotonic() - t0
        with open("/proc/%d/stat" % p.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        minflt, user, system = int(fields[7]), int(fields[11]) / tick, int(fields[12]) / tick
        with open("/proc/%d/status" % p.pid) as f:
            hwm = next(line.split()[1] for line in f if line.startswith("VmHWM"))
        print("%s ready %.3f s user %.2f s sys %.2f s minflt %d peak %s kB" % (scenario, ready, user, system, minflt, hwm), flush=True)
    finally:
        p.terminate()
        p.wait()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, scenario = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    port = int(sys.argv[4]) if len(sys.argv) > 4 else 18114
    for i in range(runs):
        if i:
            time.sleep(0.5)
        once(binary, scenario, port)


if __name__ == "__main__":
    main()
