#!/usr/bin/env bash
# Scaling of `smp apply|diff|three-way --kind Pod --jsonl` on a Pod whose
# container has N env vars (every tenth changed), end to end: wall time and
# CPU time (user + system; what a loaded machine disturbs least), each the
# best of a few runs, peak RSS (/usr/bin/time), and the exponents fitted
# to time ~ N^k by least squares on the log-log points. Given several
# binaries (an old and a new one), each case runs on each in turn, so that
# they share the machine's load, and the last columns are the time and
# RSS ratios of the first binary to each other one.
#
#   scripts/scaling.sh                           # target/release/smp, N = 1,000 ... 1,000,000
#   scripts/scaling.sh OLD_SMP target/release/smp
#   SIZES="1000 10000" VARIANTS=apply scripts/scaling.sh
#
# The cases are written by `smp-cases` (built here) into target/scaling/
# once.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- "${SMP:-target/release/smp}"
bins=("$@")
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

# Fits time ~ N^k to the "N ns" lines on stdin.
fit() {
  awk '{ x = log($1); y = log($2); sx += x; sy += y; sxx += x * x; sxy += x * y; k++ }
    END { if (k > 1) printf "%.3f", (k * sxy - sx * sy) / (k * sxx - sx * sx); else printf "-" }'
}

for b in "${!bins[@]}"; do echo "binary $b: ${bins[$b]}"; done
printf '%-14s %9s %9s' variant N input_MB
for b in "${!bins[@]}"; do printf ' %10s %10s %9s %7s' "s[$b]" "cpu_s[$b]" "RSS_MB[$b]" "RSS/in"; done
for b in "${!bins[@]}"; do if [ "$b" -gt 0 ]; then printf ' %9s %9s' "time0/$b" "RSS0/$b"; fi; done
echo
for v in $variants; do
  declare -A points=() cpu_points=()
  for n in $sizes; do
    file="$dir/pod-env$n.$v.jsonl"
    case_file "$n" "$v" "$file"
    bytes=$(stat -c %s "$file")
    declare -A best=() cpu=() rss=()
    for _ in $(seq "$runs"); do
      for b in "${!bins[@]}"; do
        start=$(date +%s%N)
        /usr/bin/time -f '%M %U %S' -o "$dir/rss" "${bins[$b]}" "$(command_of "$v")" --kind Pod --jsonl "$file" \
          --max-line-bytes 1G -j 1 >"$dir/out.$b"
        end=$(date +%s%N)
        if grep -q '^{"error"' "$dir/out.$b"; then
          echo "error on $file: $(head -c 300 "$dir/out.$b")" >&2
          exit 1
        fi
        ns=$((end - start))
        if [ -z "${best[$b]:-}" ] || [ "$ns" -lt "${best[$b]}" ]; then best[$b]=$ns; fi
        read -r r user sys <"$dir/rss"
        if [ "$r" -gt "${rss[$b]:-0}" ]; then rss[$b]=$r; fi
        c=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%d", (u + s) * 1e9 }')
        if [ -z "${cpu[$b]:-}" ] || [ "$c" -lt "${cpu[$b]}" ]; then cpu[$b]=$c; fi
      done
    done
    for b in "${!bins[@]}"; do
      if [ "$b" -gt 0 ] && ! cmp -s "$dir/out.0" "$dir/out.$b"; then
        echo "different output of ${bins[$b]} on $file" >&2
        exit 1
      fi
    done
    printf '%-14s %9d %9.1f' "$v" "$n" "$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')"
    for b in "${!bins[@]}"; do
      awk -v ns="${best[$b]}" -v cpu="${cpu[$b]}" -v kb="${rss[$b]}" -v b="$bytes" \
        'BEGIN { printf " %10.4f %10.2f %9.1f %7.2f", ns / 1e9, cpu / 1e9, kb / 1024, kb * 1024 / b }'
      points[$b]+="$n ${best[$b]}"$'\n'
      # CPU time is counted in 10 ms steps: the fit takes the sizes above that.
      if [ "${cpu[$b]}" -ge 50000000 ]; then cpu_points[$b]+="$n ${cpu[$b]}"$'\n'; fi
    done
    for b in "${!bins[@]}"; do
      if [ "$b" -gt 0 ]; then
        awk -v t0="${best[0]}" -v t="${best[$b]}" -v r0="${rss[0]}" -v r="${rss[$b]}" \
          'BEGIN { printf " %9.2f %9.2f", t0 / t, r0 / r }'
      fi
    done
    echo
    unset best cpu rss
  done
  printf '%-14s fitted exponent' "$v"
  for b in "${!bins[@]}"; do printf ' [%d] %s' "$b" "$(printf '%s' "${points[$b]}" | fit)"; done
  printf ', on CPU time over 0.05 s'
  for b in "${!bins[@]}"; do printf ' [%d] %s' "$b" "$(printf '%s' "${cpu_points[$b]:-}" | fit)"; done
  echo
  unset points cpu_points
done
