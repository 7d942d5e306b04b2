#!/usr/bin/env bash
# A single-node Slurm from Debian's packages, and a sharded benchserve load
# run on it as a job array (docs/distributed.md, "Slurm job array").
#
#   scripts/slurm.sh install   apt-get install slurm-wlm (22.05, with munge) if sbatch is missing
#   scripts/slurm.sh start     write slurm.conf and a munge key; start munged, slurmctld, slurmd
#   scripts/slurm.sh run       benchserve fixture on loopback; sbatch --wait --array=0-3 of one
#                              load shard each (shared --run-id and --start-at); benchserve merge
#   scripts/slurm.sh stop      stop the fixture and the daemons by their PIDs
#
# Needs root (SlurmUser=root, the munge key). State, logs and outputs go to
# $BENCHSERVE_SLURM_DIR (default /tmp/benchserve-slurm); results to
# $BENCHSERVE_ARTIFACTS/slurm when that is set. Every wait is bounded.
set -euo pipefail
cd "$(dirname "$0")/.."

DIR="${BENCHSERVE_SLURM_DIR:-/tmp/benchserve-slurm}"
TASKS=4
RATE=20         # requests per second of the whole run: 5 per shard
DURATION=3s     # every shard's schedule length
LEAD=15         # seconds from submission to --start-at: the tasks start well within it

log() { printf 'slurm.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# wait_for SECONDS DESCRIPTION COMMAND...: retry COMMAND every 0.5 s.
wait_for() {
  local secs=$1 what=$2
  shift 2
  local end=$(($(date +%s) + secs))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$end" ] || die "$what: not ready after ${secs} s"
    sleep 0.5
  done
}

install() {
  if command -v sbatch >/dev/null 2>&1 && command -v slurmctld >/dev/null 2>&1; then
    log "slurm already installed: $(sbatch --version)"
    return
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq slurm-wlm >/dev/null
  log "installed $(sbatch --version)"
}

start() {
  [ "$(id -u)" = 0 ] || die "start: needs root (SlurmUser=root, /etc/munge/munge.key)"
  local host cpus
  host=$(hostname -s)
  cpus=$(nproc)
  mkdir -p "$DIR"/{state,spool,log,run}
  cat >"$DIR/slurm.conf" <<EOF
ClusterName=benchserve
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=bench Nodes=$host Default=YES MaxTime=10:00 State=UP OverSubscribe=FORCE:8
EOF
  # Commands and daemons read this file wherever they run.
  export SLURM_CONF="$DIR/slurm.conf"

  if [ ! -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
  chown munge:munge /etc/munge/munge.key
  chmod 0400 /etc/munge/munge.key
  mkdir -p /run/munge /var/lib/munge /var/log/munge
  chown munge:munge /run/munge /var/lib/munge /var/log/munge
  chmod 0755 /run/munge
  if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    log "munged already running: using it (and leaving it running)"
  else
    # munged runs as its own user and writes its PID where that user may.
    runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/benchserve-munged.pid
    ln -sf /run/munge/benchserve-munged.pid "$DIR/run/munged.pid"
    wait_for 10 munged sh -c 'munge -n | unmunge'
  fi

  /usr/sbin/slurmctld -f "$SLURM_CONF"
  wait_for 20 slurmctld scontrol ping
  /usr/sbin/slurmd -f "$SLURM_CONF"
  wait_for 30 "slurmd (node $host idle)" sh -c "sinfo -h -N -o %t | grep -qx idle"
  log "slurm up: $(sinfo -h -o '%P %D nodes %c cpus %t')"
}

run() {
  export SLURM_CONF="$DIR/slurm.conf"
  [ -f "$SLURM_CONF" ] || die "run: no $SLURM_CONF: run '$0 start' first"
  local out="${BENCHSERVE_ARTIFACTS:+$BENCHSERVE_ARTIFACTS/slurm}"
  out="${out:-$DIR/out}"
  rm -rf "$out"
  mkdir -p "$out"
  timeout 300 go build -o "$DIR/benchserve" ./cmd/benchserve

  # The fixture on loopback, its URL from its first line.
  "$DIR/benchserve" fixture --addr 127.0.0.1:0 >"$DIR/log/fixture.log" 2>&1 &
  echo $! >"$DIR/run/fixture.pid"
  wait_for 10 fixture grep -q 'serving model' "$DIR/log/fixture.log"
  local url
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$DIR/log/fixture.log" | head -1)
  [ -n "$url" ] || die "run: no fixture URL in $DIR/log/fixture.log"

  local run_id start_at
  run_id=$(head -c4 /dev/urandom | od -An -tx1 | tr -d ' \n')
  start_at=$(date -u -d "@$(($(date +%s) + LEAD))" +%Y-%m-%dT%H:%M:%SZ)
  # One shard per array task: benchserve reads SLURM_ARRAY_TASK_ID and
  # SLURM_ARRAY_TASK_COUNT itself, BENCHSERVE_START_AT from the environment.
  cat >"$DIR/shard.sbatch" <<EOF
#!/bin/sh
#SBATCH --job-name=benchserve-load
#SBATCH --output=$out/task-%a.log
#SBATCH --time=5:00
exec "$DIR/benchserve" --url "$url" --workload "$PWD/workloads/examples/smoke.json" \\
  --request-rate $RATE --duration $DURATION --seed 1 --run-id $run_id \\
  --output "$out/shard-\$SLURM_ARRAY_TASK_ID.json"
EOF
  log "sbatch --wait --array=0-$((TASKS - 1)): run $run_id, start at $start_at, $url"
  local rc=0
  BENCHSERVE_START_AT="$start_at" timeout 180 sbatch --wait --array=0-$((TASKS - 1)) \
    --export=ALL,BENCHSERVE_START_AT="$start_at" "$DIR/shard.sbatch" || rc=$?
  for f in "$out"/task-*.log; do
    [ -f "$f" ] && { printf -- '--- %s\n' "${f##*/}" >&2; cat "$f" >&2; }
  done
  [ "$rc" = 0 ] || die "run: sbatch --wait exited $rc (a task failed or timed out); logs above"

  local shards=()
  for i in $(seq 0 $((TASKS - 1))); do
    [ -s "$out/shard-$i.json" ] || die "run: task $i wrote no $out/shard-$i.json"
    shards+=("$out/shard-$i.json")
  done
  # The shards' own thresholds are evaluated again on the whole run; merge
  # exits non-zero when one fails or a shard is missing.
  if ! "$DIR/benchserve" merge "$out/merged.json" "${shards[@]}" >"$out/merge.txt" 2>&1; then
    cat "$out/merge.txt" >&2
    die "run: benchserve merge failed"
  fi
  cat "$out/merge.txt" >&2
  grep -q "from $TASKS payloads ($TASKS shards)" "$out/merge.txt" || die "run: the merge did not join $TASKS shards"
  log "merged: $out/merged.json"
}

# stop_pid NAME FILE: TERM the process in FILE, KILL it after 10 s.
stop_pid() {
  local name=$1 file=$2 pid
  [ -f "$file" ] || return 0
  pid=$(cat "$file")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && { log "stop: $name ($pid) ignored TERM: KILL"; kill -9 "$pid" 2>/dev/null || true; }
  fi
  rm -f "$file"
}

stop() {
  # Tasks still running (a run cut by its timeout) outlive slurmd: cancel
  # this script's job by name first, while slurmctld still answers.
  if [ -f "$DIR/slurm.conf" ] && SLURM_CONF="$DIR/slurm.conf" timeout 5 scontrol ping >/dev/null 2>&1; then
    SLURM_CONF="$DIR/slurm.conf" timeout 10 scancel --name=benchserve-load || true
    for _ in $(seq 20); do
      [ -z "$(SLURM_CONF="$DIR/slurm.conf" squeue -h --name=benchserve-load 2>/dev/null)" ] && break
      sleep 0.5
    done
  fi
  stop_pid fixture "$DIR/run/fixture.pid"
  stop_pid slurmd "$DIR/run/slurmd.pid"
  stop_pid slurmctld "$DIR/run/slurmctld.pid"
  stop_pid munged "$DIR/run/munged.pid"
  log "stopped"
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  run) run ;;
  stop) stop ;;
  *) echo "usage: $0 install|start|run|stop" >&2; exit 2 ;;
esac
