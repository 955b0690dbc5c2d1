#!/usr/bin/env bash
# Purchase-code activity, on against off (issue 24): the same build twice over the bench's SQLite
# store, one with `activity.enabled` false, under wrk's valid-codes load (every request names
# another of 20,000 codes: the counter's worst case), in alternated rounds; then each round's
# requests a second and CPU time per request (utime + stime from /proc) of both, and the medians
# of the on/off ratios. Needs wrk, and the bench store and request files `npm run bench` leaves in
# bench/.cache and bench/results (run `npm run bench -- --cases valid --store sqlite --rounds 1`
# once first).
#
#   npm run bench:activity                 # 10 rounds of 6 s, each on two servers started anew
#   ROUNDS=10 SECONDS_EACH=10 npm run bench:activity
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-10}
SECONDS_EACH=${SECONDS_EACH:-6}
STORE=$(ls bench/.cache/http-*.db 2>/dev/null | grep -v -- '-activity.db$' | head -1 || true)
REQUESTS=bench/results/.wrk-valid.tsv
CONFIG=bench/results/.bench-config.json
if [ -z "$STORE" ] || [ ! -f "$REQUESTS" ] || [ ! -f "$CONFIG" ]; then
  echo "bench:activity needs the bench store and request files: run npm run bench -- --cases valid --store sqlite --rounds 1 first" >&2
  exit 1
fi
command -v wrk >/dev/null || { echo "bench:activity needs wrk (apt-get install wrk)" >&2; exit 1; }
npm run build >/dev/null
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
for state in on off; do
  node -e "const c = require('./$CONFIG'); c.activity = { enabled: process.argv[1] === 'on' };
    require('fs').writeFileSync(process.argv[2], JSON.stringify(c))" "$state" "$work/$state.json"
done
start=$(node -e "console.log(require('./package.json').scripts.start)")
port_of() { grep -o 'listening at http://127.0.0.1:[0-9]*' "$work/$1.log" | grep -o '[0-9]*$'; }
declare -A pid port
launch() { # state: starts it, waits for it to listen
  MARKETPLACE_CONFIG="$work/$1.json" DATABASE_URL="sqlite:$STORE" SECRET_KEY=bench-secret-not-for-production-0123456789abcdef \
    PORT=0 LOG_LEVEL=info sh -c "$start" > "$work/$1.log" 2>&1 &
  pid[$1]=$!
  pids+=($!)
  until grep -q 'listening at' "$work/$1.log"; do sleep 0.2; done
  port[$1]=$(port_of "$1")
}
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
load() { # state seconds [once] -> "requests cpu_ticks rps"
  local before after out
  before=$(cpu "${pid[$1]}")
  out=$(wrk -t1 -c50 -d"$2"s -s bench/wrk-requests.lua "http://127.0.0.1:${port[$1]}" -- "$REQUESTS" valid ${3:-})
  after=$(cpu "${pid[$1]}")
  echo "$(echo "$out" | awk '/requests in/{print $1}') $((after - before)) $(echo "$out" | awk '/Requests\/sec/{print $2}')"
}
ticks=$(getconf CLK_TCK)
results=()
# Each round starts both servers anew, in turns first: an A/A run (both counting) of one pair of
# processes kept for every round measured one at 0.86 of the other, so a process's own speed
# (where its memory landed, what the host gave its threads) would otherwise pass for counting's.
for round in $(seq 1 "$ROUNDS"); do
  order="on off"; [ $((round % 2)) = 0 ] && order="off on"
  for state in $order; do launch "$state"; done
  for state in $order; do load "$state" 120 once >/dev/null; load "$state" 3 >/dev/null; done
  for state in $order; do
    read -r requests used rps < <(load "$state" "$SECONDS_EACH")
    micros=$(awk -v used="$used" -v ticks="$ticks" -v n="$requests" 'BEGIN { printf "%.1f", used * 1000000 / ticks / n }')
    printf 'round %d, activity %-3s: %8.0f req/s, %5.1f µs CPU a request\n' "$round" "$state" "$rps" "$micros"
    results+=("$round $state $rps $micros")
  done
  for state in on off; do kill "${pid[$state]}"; wait "${pid[$state]}" 2>/dev/null || true; done
  pids=()
done
printf '%s\n' "${results[@]}" | node -e "
  const rounds = new Map();
  for (const line of require('fs').readFileSync(0, 'utf8').trim().split('\n')) {
    const [round, state, rps, cpu] = line.split(' ');
    rounds.set(round, { ...rounds.get(round), [state]: { rps: Number(rps), cpu: Number(cpu) } });
  }
  const median = (values) => { const s = [...values].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
  const rate = [...rounds.values()].map((r) => r.on.rps / r.off.rps);
  const cpu = [...rounds.values()].map((r) => r.off.cpu / r.on.cpu);
  console.log('rate on/off by round: ' + rate.map((x) => x.toFixed(2)).join(' ') + '; median ' + median(rate).toFixed(3) + ' (target at least 0.97)');
  console.log('CPU a request off/on by round: ' + cpu.map((x) => x.toFixed(2)).join(' ') + '; median ' + median(cpu).toFixed(3));
"
