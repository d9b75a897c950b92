# Shared by the bench scripts: the output folder, and pinning the server
# and the client to different cores where there are two.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=bench/out
mkdir -p "$out"
pin0="" pin1=""
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then pin0="taskset -c 0" pin1="taskset -c 1"; fi

# A measurement's output is taken whole (r=$(...)) and only then handed
# to the python3 that reads it: on these machines python3 takes 0.4 s of
# CPU to start, and started in the same pipeline it ran beside the
# measurement, taking a core's time from a two-core machine's engine (a
# tail of 2-6 ms steps under a c=1 run, 8% of its throughput).

# serve_scripted starts the scripted server ($out/scripted-server, built by
# the script) on CPU 1 at $port with the flags given, and waits until it
# answers at $url; stop_scripted stops it.
serve_scripted() {
  $pin1 "$out/scripted-server" -addr 127.0.0.1:$port "$@" >/dev/null 2>&1 &
  server=$!
  for _ in $(seq 50); do curl -fsS "$url/v1/models" >/dev/null 2>&1 && return; sleep 0.1; done
  echo "scripted server did not start" >&2; exit 1
}
stop_scripted() { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
