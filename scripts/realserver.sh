#!/usr/bin/env bash
# realserver.sh: a real inference server for benchserve without a GPU.
#
# Builds Ollama at a pinned version from the Go module proxy, writes a tiny
# llama model (tools/tinymodel), serves it on loopback and registers it, so
# benchserve (and the integration tests in ./tests/integration) can run against a
# real OpenAI-compatible streaming server.
#
# Usage:
#   scripts/realserver.sh install   # apt nlohmann-json3-dev, go install ollama@v0.6.5 (~2-6 min cold)
#   scripts/realserver.sh start     # write model, serve, wait, create "tiny"; prints the env on stdout
#   scripts/realserver.sh env       # print the env again
#   scripts/realserver.sh status    # exit 0 when the server answers
#   scripts/realserver.sh stop      # stop the server started by `start`
#
# `start` prints exactly two lines on stdout (everything else goes to stderr):
#   BENCHSERVE_URL=http://127.0.0.1:11435
#   BENCHSERVE_MODEL=tiny
# so   env $(scripts/realserver.sh start) go test ./tests/integration/ -v   works
# (the same lines are written to $REALSERVER_DIR/env, for `set -a; . FILE`).
#
# Environment (all optional):
#   REALSERVER_PORT   loopback port (default 11435; Ollama's own default 11434 is left alone)
#   REALSERVER_DIR    work dir for model, Modelfile, logs, pid (default ${TMPDIR:-/tmp}/benchserve-realserver)
#   REALSERVER_MODEL  model name to register (default tiny)
#   OLLAMA_BIN        ollama binary (default: $(go env GOBIN)/ollama, $(go env GOPATH)/bin/ollama, or PATH)
#   REALSERVER_READY_TIMEOUT  seconds to wait for the server (default 60)
#
# Every subcommand is idempotent: install skips what is present, start
# reuses a running server, stop is a no-op when nothing runs.
set -euo pipefail

OLLAMA_VERSION=v0.6.5
PORT=${REALSERVER_PORT:-11435}
DIR=${REALSERVER_DIR:-${TMPDIR:-/tmp}/benchserve-realserver}
MODEL=${REALSERVER_MODEL:-tiny}
READY_TIMEOUT=${REALSERVER_READY_TIMEOUT:-60}
HOSTPORT=127.0.0.1:${PORT}
URL=http://${HOSTPORT}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PIDFILE=${DIR}/ollama.pid
LOGFILE=${DIR}/ollama.log

log() { echo "realserver: $*" >&2; }
die() {
	log "error: $*"
	exit 1
}

# ollama_bin prints the path of the ollama binary to use ("" if none).
ollama_bin() {
	if [[ -n ${OLLAMA_BIN:-} ]]; then
		echo "${OLLAMA_BIN}"
		return
	fi
	local gobin
	gobin=$(go env GOBIN)
	[[ -n ${gobin} ]] || gobin=$(go env GOPATH)/bin
	if [[ -x ${gobin}/ollama ]]; then
		echo "${gobin}/ollama"
	else
		command -v ollama || true
	fi
}

# pinned reports whether the binary was built from ollama at OLLAMA_VERSION.
# `ollama --version` cannot tell: go install does not stamp the version
# (it reports 0.0.0), so read the module version from the build info.
pinned() {
	local bin=$1
	[[ -x ${bin} ]] || return 1
	go version -m "${bin}" 2>/dev/null | awk '$1 == "mod" && $2 == "github.com/ollama/ollama" { print $3 }' | grep -qx "${OLLAMA_VERSION}"
}

cmd_install() {
	if [[ ! -f /usr/include/nlohmann/json.hpp ]]; then
		log "installing nlohmann-json3-dev (needed by ollama's cgo build)"
		local sudo=()
		[[ $(id -u) -eq 0 ]] || sudo=(sudo)
		"${sudo[@]}" apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq nlohmann-json3-dev >&2
	fi
	local bin
	bin=$(ollama_bin)
	if [[ -n ${bin} ]] && pinned "${bin}"; then
		log "ollama ${OLLAMA_VERSION} already installed at ${bin}"
		return
	fi
	log "building ollama ${OLLAMA_VERSION} with go install (cgo, several minutes on a cold cache)"
	local t0=${SECONDS}
	# Newer tags fail: their vendored llama.cpp headers are not in the module zip.
	GOFLAGS=-buildvcs=false go install "github.com/ollama/ollama@${OLLAMA_VERSION}" >&2
	bin=$(ollama_bin)
	pinned "${bin}" || die "go install finished but ${bin:-ollama} is not ${OLLAMA_VERSION}"
	log "installed ${bin} in $((SECONDS - t0)) s"
}

running() {
	[[ -f ${PIDFILE} ]] && kill -0 "$(cat "${PIDFILE}")" 2>/dev/null
}

answers() {
	curl -fsS --max-time 2 "${URL}/api/version" >/dev/null 2>&1
}

print_env() {
	echo "BENCHSERVE_URL=${URL}"
	echo "BENCHSERVE_MODEL=${MODEL}"
}

cmd_start() {
	local bin
	bin=$(ollama_bin)
	[[ -n ${bin} && -x ${bin} ]] || die "no ollama binary; run: scripts/realserver.sh install"
	pinned "${bin}" || log "warning: ${bin} is not ollama ${OLLAMA_VERSION}; results may differ"
	mkdir -p "${DIR}/models"
	local t0=${SECONDS}

	if running && answers; then
		log "server already running (pid $(cat "${PIDFILE}")) at ${URL}"
	else
		if running; then
			log "pid $(cat "${PIDFILE}") is alive but does not answer; restarting it"
			cmd_stop
		fi
		if answers; then
			die "something else already answers on ${URL}; set REALSERVER_PORT"
		fi
		rm -f "${PIDFILE}"
		log "starting ${bin} serve on ${HOSTPORT} (log ${LOGFILE})"
		# Own session, so stop can reach the runner subprocesses too.
		OLLAMA_HOST=${HOSTPORT} OLLAMA_MODELS=${DIR}/models \
			OLLAMA_NUM_PARALLEL=${OLLAMA_NUM_PARALLEL:-4} OLLAMA_KEEP_ALIVE=${OLLAMA_KEEP_ALIVE:-1h} \
			OLLAMA_NOHISTORY=1 \
			setsid "${bin}" serve </dev/null >"${LOGFILE}" 2>&1 &
		echo $! >"${PIDFILE}"
		local deadline=$((SECONDS + READY_TIMEOUT))
		until answers; do
			if ! running; then
				tail -n 40 "${LOGFILE}" >&2 || true
				die "ollama serve exited during startup"
			fi
			if ((SECONDS >= deadline)); then
				tail -n 40 "${LOGFILE}" >&2 || true
				die "server not ready after ${READY_TIMEOUT} s"
			fi
			sleep 0.25
		done
		log "server ready after $((SECONDS - t0)) s"
	fi

	log "writing model ${DIR}/tiny.gguf"
	(cd "${ROOT}/tools/tinymodel" && go run . -o "${DIR}/tiny.gguf") >&2
	cat >"${DIR}/Modelfile" <<EOF
FROM ${DIR}/tiny.gguf
TEMPLATE """{{- range .Messages }}<|{{ .Role }}|>
{{ .Content }}
{{ end }}<|assistant|>
"""
PARAMETER num_ctx 8192
PARAMETER num_thread 1
EOF
	OLLAMA_HOST=${HOSTPORT} "${bin}" create "${MODEL}" -f "${DIR}/Modelfile" </dev/null >"${DIR}/create.log" 2>&1 ||
		{
			cat "${DIR}/create.log" >&2
			die "ollama create failed"
		}
	# Load the model now so the first measured request is not a cold load.
	curl -fsS --max-time "${READY_TIMEOUT}" "${URL}/api/generate" \
		-d "{\"model\":\"${MODEL}\",\"keep_alive\":\"1h\"}" >/dev/null ||
		{
			tail -n 40 "${LOGFILE}" >&2 || true
			die "loading ${MODEL} failed"
		}
	log "model ${MODEL} registered and loaded; ready after $((SECONDS - t0)) s"
	print_env | tee "${DIR}/env"
}

cmd_stop() {
	if [[ ! -f ${PIDFILE} ]]; then
		log "not running (no ${PIDFILE})"
		return
	fi
	local pid
	pid=$(cat "${PIDFILE}")
	if kill -0 "${pid}" 2>/dev/null; then
		log "stopping pid ${pid}"
		kill -TERM "${pid}" 2>/dev/null || true
		local i
		for ((i = 0; i < 60; i++)); do
			kill -0 "${pid}" 2>/dev/null || break
			sleep 0.25
		done
		if kill -0 "${pid}" 2>/dev/null; then
			log "pid ${pid} ignored TERM; killing its process group"
			kill -KILL -- "-${pid}" 2>/dev/null || true
		fi
	fi
	# The runner subprocesses share the server's session/process group.
	kill -TERM -- "-${pid}" 2>/dev/null || true
	rm -f "${PIDFILE}"
	log "stopped"
}

case ${1:-} in
install) cmd_install ;;
start) cmd_start ;;
stop) cmd_stop ;;
env) print_env ;;
status)
	if running && answers; then
		log "running (pid $(cat "${PIDFILE}")) at ${URL}"
	else
		log "not running"
		exit 1
	fi
	;;
*)
	sed -n '2,/^set -euo/{/^set -euo/d;p;}' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
