#!/usr/bin/env bash
# Byte-identity of two `smp` binaries' batch outputs: the shipped bench
# cases and COUNT (default 20,000) random cases of each operation, from the
# project's generators (`smp-cases`, seeded: the same cases every run).
#
#   scripts/same-output.sh OLD_SMP [NEW_SMP]     # NEW_SMP: target/release/smp
#
# Exits 1 at the first difference, showing the line.
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: scripts/same-output.sh OLD_SMP [NEW_SMP]}
new=${2:-target/release/smp}
count=${COUNT:-20000}
seed=${SEED:-1}
dir=target/same-output
mkdir -p "$dir"
cases=target/release/smp-cases
if [ ! -x "$cases" ] || [ -n "${REBUILD_CASES:-}" ]; then
  nice cargo build --release -q -p smp-tests --bin smp-cases
fi
status=0
for pair in apply:apply twoway:diff threeway:three-way; do
  op=${pair%%:*}
  command=${pair#*:}
  "$cases" bench "$op" >"$dir/bench.$op.jsonl"
  "$cases" random "$op" "$count" "$seed" >"$dir/random.$op.jsonl"
  for set in bench random; do
    input="$dir/$set.$op.jsonl"
    "$old" "$command" --jsonl "$input" >"$dir/$set.$op.old" || true
    "$new" "$command" --jsonl "$input" >"$dir/$set.$op.new" || true
    lines=$(wc -l <"$input")
    errors=$(grep -c '^{"error"' "$dir/$set.$op.old" || true)
    if cmp -s "$dir/$set.$op.old" "$dir/$set.$op.new"; then
      echo "same: $set $command: $lines cases ($errors error lines)"
    else
      status=1
      at=$(cmp "$dir/$set.$op.old" "$dir/$set.$op.new" | sed -n 's/.* line \([0-9]*\).*/\1/p')
      echo "DIFFERENT: $set $command, line ${at:-?} of $input"
      echo "  old: $(sed -n "${at:-1}p" "$dir/$set.$op.old" | head -c 400)"
      echo "  new: $(sed -n "${at:-1}p" "$dir/$set.$op.new" | head -c 400)"
    fi
  done
done
exit $status
