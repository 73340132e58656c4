#!/usr/bin/env bash
# Finds the smallest -Xmx (in MiB) at which `benchmarks.jar heap-probe` completes the scheduler
# lifecycle of the reference job (initialise, schedule, deploy, fail over and, for Railyard, finish
# every task so that every partition is released), by bisection.
# Usage: scripts/min-heap.sh [PARALLELISM] [MAX_MIB] [extra heap-probe options...]
# Prints one line: "min_heap_mib=<n> parallelism=<p>". Needs benchmarks/target/benchmarks.jar
# (mvn -B -q package -DskipTests).
set -euo pipefail
cd "$(dirname "$0")/.."
parallelism="${1:-10000}"
high="${2:-8192}"
shift $(( $# > 2 ? 2 : $# )) || true
extra=("$@")
jar="${RAILYARD_JAR:-benchmarks/target/benchmarks.jar}"
[[ -f "$jar" ]] || { echo "missing $jar: run mvn -B -q package -DskipTests" >&2; exit 2; }

fits() { # $1 = MiB; the JVM may fail to start below its own minimum: that counts as "no"
  java -Xms"$1"m -Xmx"$1"m -XX:+UseSerialGC -jar "$jar" heap-probe \
    --parallelism "$parallelism" ${extra[@]+"${extra[@]}"} >/dev/null 2>&1
}

fits "$high" || { echo "does not fit in ${high} MiB" >&2; exit 1; }
low=1 # known not to fit (no JVM runs in 1 MiB)
while (( high - low > 1 )); do
  mid=$(( (low + high) / 2 ))
  if fits "$mid"; then high=$mid; else low=$mid; fi
done
echo "min_heap_mib=${high} parallelism=${parallelism}"
