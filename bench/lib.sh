# Shared by the bench scripts: the output folder, and pinning the server
# and the client to different cores where there are two.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=bench/out
mkdir -p "$out"
pin0="" pin1=""
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then pin0="taskset -c 0" pin1="taskset -c 1"; fi
