#!/usr/bin/env bash
# Railyard's shuffle in a Flink cluster of separate processes, with a TaskManager killed mid-job.
#
# Starts a Flink 2.3 JobManager and two TaskManagers as separate JVMs from Flink's entry-point
# classes (flink-dist is not on Maven Central), with Railyard's plugin on their class path and
# shuffle-service-factory.class set to it, all on loopback. Submits a BLOCKING word count
# (io.railyard.flink.ProcessClusterJob); when its counting task is halfway, kills that task's
# TaskManager with SIGKILL; waits for Flink to recover and checks the counts are exact. Stops every
# process and removes its directory on exit, whatever happens. Exit 0 when exact.
#
# Usage: scripts/flink-process-cluster.sh [WORK_DIR]
#   RAILYARD_FLINK_CLASSPATH  the class path to run (default: the flink-plugin module's test
#                             class path, compiled and resolved with Maven)
#   JAVA                      the java to run (default: java)
#   TIMEOUT_SECONDS           how long the job may take in all (default: 240)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
JAVA="${JAVA:-java}"
TIMEOUT_SECONDS="${TIMEOUT_SECONDS:-240}"
CREATED_WORK=""
if [[ $# -gt 1 || "${1:-}" == -* ]]; then
  echo "usage: scripts/flink-process-cluster.sh [WORK_DIR] (no options; was: $*)" >&2
  exit 2
fi
if [[ $# -eq 1 ]]; then
  WORK="$1"
  if ! mkdir -p "$WORK" 2>/dev/null || [[ ! -w "$WORK" ]]; then
    echo "cannot write the work directory '$WORK': give a writable WORK_DIR" >&2
    exit 2
  fi
else
  WORK="$(mktemp -d -t railyard-flink-cluster.XXXXXX)"
  CREATED_WORK="$WORK"
fi
PIDS=()

cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  sleep 1
  for pid in "${PIDS[@]}"; do
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [[ -n "$CREATED_WORK" ]]; then
    rm -rf "$CREATED_WORK"
  fi
}
trap cleanup EXIT

if [[ -z "${RAILYARD_FLINK_CLASSPATH:-}" ]]; then
  PLUGIN="$ROOT/shuffle-integration/flink-plugin"
  echo "resolving the class path with Maven (compiles the plugin and its tests)"
  mvn -B -q -f "$ROOT/pom.xml" test-compile dependency:build-classpath \
    -pl shuffle-integration/flink-plugin -am -Dcheckstyle.skip -Dspotless.check.skip=true \
    -Dmdep.includeScope=test -Dmdep.outputFile=target/railyard-classpath.txt >/dev/null
  RAILYARD_FLINK_CLASSPATH="$PLUGIN/target/test-classes:$PLUGIN/target/classes:$(cat "$PLUGIN/target/railyard-classpath.txt")"
fi

free_port() {
  local port
  while true; do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
}

RPC_PORT="$(free_port)"
REST_PORT="$(free_port)"
mkdir -p "$WORK/conf" "$WORK/out"
cat > "$WORK/conf/config.yaml" <<CONF
jobmanager.rpc.address: localhost
jobmanager.rpc.port: $RPC_PORT
jobmanager.bind-host: localhost
jobmanager.memory.process.size: 1g
rest.address: localhost
rest.bind-address: localhost
rest.port: $REST_PORT
taskmanager.host: localhost
taskmanager.bind-host: localhost
taskmanager.numberOfTaskSlots: 2
taskmanager.cpu.cores: 2
taskmanager.memory.task.heap.size: 256m
taskmanager.memory.task.off-heap.size: 0m
taskmanager.memory.network.min: 64m
taskmanager.memory.network.max: 64m
taskmanager.memory.managed.size: 128m
taskmanager.memory.framework.heap.size: 128m
taskmanager.memory.framework.off-heap.size: 128m
taskmanager.memory.jvm-metaspace.size: 256m
taskmanager.memory.jvm-overhead.min: 192m
taskmanager.memory.jvm-overhead.max: 192m
heartbeat.interval: 1000
heartbeat.timeout: 6000
shuffle-service-factory.class: io.railyard.flink.RailyardShuffleServiceFactory
CONF

# Every JVM keeps its temporary files in the work directory, which goes on exit: the TaskManager
# killed with SIGKILL cannot delete what it put in java.io.tmpdir (lz4-java's native library).
JVM_TMP="$WORK/jvm-tmp"
mkdir -p "$JVM_TMP"

start() { # name, main class, extra arguments...
  local name="$1" main="$2"
  shift 2
  "$JAVA" -Xmx512m -Djava.io.tmpdir="$JVM_TMP" -cp "$RAILYARD_FLINK_CLASSPATH" "$main" \
    --configDir "$WORK/conf" "$@" >"$WORK/$name.log" 2>&1 &
  PIDS+=("$!")
}

start jobmanager org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint
for tm in 1 2; do
  mkdir -p "$WORK/tmp-$tm"
  start "taskmanager-$tm" org.apache.flink.runtime.taskexecutor.TaskManagerRunner \
    -D "taskmanager.resource-id=tm-$tm" -D "io.tmp.dirs=$WORK/tmp-$tm"
done

"$JAVA" -Xmx512m -Djava.io.tmpdir="$JVM_TMP" -cp "$RAILYARD_FLINK_CLASSPATH" io.railyard.flink.ProcessClusterJob \
  "$REST_PORT" "$WORK/out" "$WORK/kill-now" >"$WORK/job.log" 2>&1 &
JOB=$!
PIDS+=("$JOB")

deadline=$((SECONDS + TIMEOUT_SECONDS))
killed=""
while kill -0 "$JOB" 2>/dev/null; do
  if [[ -z "$killed" && -s "$WORK/kill-now" ]]; then
    killed="$(cat "$WORK/kill-now")"
    kill -9 "$killed"
    echo "killed TaskManager pid $killed (SIGKILL) mid-job"
  fi
  if (( SECONDS > deadline )); then
    echo "the job did not end within $TIMEOUT_SECONDS s; its log:" >&2
    tail -n 40 "$WORK/job.log" >&2
    exit 2
  fi
  sleep 0.2
done
status=0
wait "$JOB" || status=$?
grep -v "^SLF4J" "$WORK/job.log" || true
if [[ -z "$killed" ]]; then
  echo "no TaskManager was killed: the job never asked" >&2
  exit 3
fi
exit "$status"
