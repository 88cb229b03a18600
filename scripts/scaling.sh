#!/usr/bin/env bash
# Scaling of `smp apply|diff|three-way --kind Pod --jsonl` on a Pod whose
# container has N env vars (every tenth changed), end to end: wall time
# (best of a few runs), peak RSS (/usr/bin/time), and the exponent fitted
# to time ~ N^k by least squares on the log-log points.
#
#   scripts/scaling.sh                      # N = 1,000 ... 1,000,000
#   SIZES="1000 10000" VARIANTS=apply scripts/scaling.sh
#
# SMP names the binary (default target/release/smp); the cases are written
# by `smp-cases` (built here) into target/scaling/ once.
set -euo pipefail
cd "$(dirname "$0")/.."
smp=${SMP:-target/release/smp}
sizes=${SIZES:-"1000 10000 100000 1000000"}
variants=${VARIANTS:-"apply apply-ordered apply-label twoway threeway"}
runs=${RUNS:-3}
dir=target/scaling
mkdir -p "$dir"
cases=target/release/smp-cases

# Writes the case line of size $1 and variant $2 into $3, once.
case_file() {
  [ -s "$3" ] && return
  if [ ! -x "$cases" ]; then
    nice cargo build --release -q -p smp-tests --bin smp-cases
  fi
  "$cases" pod-env "$1" "$2" >"$3"
}

command_of() {
  case "$1" in
    apply*) echo apply ;;
    twoway) echo diff ;;
    threeway) echo three-way ;;
  esac
}

printf '%-14s %9s %11s %11s %10s %9s\n' variant N seconds peak_RSS_MB input_MB RSS/input
for v in $variants; do
  points=()
  for n in $sizes; do
    file="$dir/pod-env$n.$v.jsonl"
    case_file "$n" "$v" "$file"
    best=
    rss=0
    for _ in $(seq "$runs"); do
      start=$(date +%s%N)
      /usr/bin/time -f '%M' -o "$dir/rss" "$smp" "$(command_of "$v")" --kind Pod --jsonl "$file" \
        --max-line-bytes 1G -j 1 >"$dir/out"
      end=$(date +%s%N)
      if grep -q '^{"error"' "$dir/out"; then
        echo "error on $file: $(head -c 300 "$dir/out")" >&2
        exit 1
      fi
      ns=$((end - start))
      if [ -z "$best" ] || [ "$ns" -lt "$best" ]; then best=$ns; fi
      r=$(cat "$dir/rss")
      if [ "$r" -gt "$rss" ]; then rss=$r; fi
    done
    bytes=$(stat -c %s "$file")
    awk -v v="$v" -v n="$n" -v ns="$best" -v kb="$rss" -v b="$bytes" 'BEGIN {
      printf "%-14s %9d %11.4f %11.1f %10.1f %9.2f\n", v, n, ns / 1e9, kb / 1024, b / 1048576, kb * 1024 / b }'
    points+=("$n $best")
  done
  printf '%s\n' "${points[@]}" | awk -v v="$v" '{ x = log($1); y = log($2); sx += x; sy += y; sxx += x * x; sxy += x * y; k++ }
    END { if (k > 1) printf "%-14s fitted exponent %.3f\n", v, (k * sxy - sx * sy) / (k * sxx - sx * sx) }'
done
