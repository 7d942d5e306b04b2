#!/usr/bin/env bash
# realserver.sh: a real inference server for benchserve without a GPU.
#
# Builds Ollama at a pinned version from the Go module proxy, writes a tiny
# llama model (tools/tinymodel), serves it on loopback and registers it, so
# benchserve (and the integration tests in ./tests/integration) can run against a
# real OpenAI-compatible streaming server. Each version has its own binary
# directory, port and work dir, so several can be installed and served at once.
#
# Usage:
#   scripts/realserver.sh [--version V] install   # build ollama V into its own GOBIN (v0.6.5 ~2-6 min, v0.17.4 ~13 min cold)
#   scripts/realserver.sh [--version V] start     # write model, serve, wait, create "tiny" and "tiny-tools"; prints the env on stdout
#   scripts/realserver.sh [--version V] env       # print the env again
#   scripts/realserver.sh [--version V] status    # exit 0 when the server answers
#   scripts/realserver.sh [--version V] stop      # stop the server started by `start`
#   scripts/realserver.sh [--version V] bin       # print the path of the binary `install` builds
#
# Versions (V, or $OLLAMA_VERSION; default v0.6.5):
#   v0.6.5    port 11435; needs nlohmann-json3-dev (installed with apt)
#   v0.17.4   port 11436; its module zip omits four vendored C headers, taken from
#             ../shared/vendor/ollama-v0.17.4 next to the repository, its main worktree
#             or the origin it was cloned from (scripts/shared-dir.sh; $OLLAMA_VENDOR_DIR)
#   other     built the same way as v0.6.5; REALSERVER_PORT is required
#
# `start` prints exactly two lines on stdout (everything else goes to stderr):
#   BENCHSERVE_URL=http://127.0.0.1:11435
#   BENCHSERVE_MODEL=tiny
# so   env $(scripts/realserver.sh start) go test ./tests/integration/ -v   works
# (the same lines are written to $REALSERVER_DIR/env, for `set -a; . FILE`).
#
# The binary is stamped with its version (-X .../version.Version, as Ollama's
# release builds do), so GET /api/version reports it; `install` checks both
# that stamp and the module version in the build info (`go version -m`).
#
# Environment (all optional):
#   OLLAMA_VERSION    version to build and serve (default v0.6.5; --version wins)
#   REALSERVER_PORT   loopback port (default per version, above; Ollama's own 11434 is left alone)
#   REALSERVER_DIR    work dir for model, Modelfile, logs, pid (default ${TMPDIR:-/tmp}/benchserve-realserver-V)
#   REALSERVER_MODEL  model name to register (default tiny)
#   REALSERVER_TOOLS_MODEL  the same model with a template that takes tools (default MODEL-tools)
#   REALSERVER_GOBIN  where `install` puts the binary (default ${XDG_CACHE_HOME:-~/.cache}/benchserve/ollama/V/bin)
#   OLLAMA_BIN        ollama binary to serve instead of REALSERVER_GOBIN/ollama (install then only checks it)
#   OLLAMA_VENDOR_DIR the v0.17.4 headers (default ../shared/vendor/ollama-v0.17.4 relative to the repository)
#   REALSERVER_READY_TIMEOUT  seconds to wait for the server (default 60)
#
# Every subcommand is idempotent: install skips a binary already built at V,
# start reuses a running server, stop is a no-op when nothing runs.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OLLAMA_VERSION=${OLLAMA_VERSION:-v0.6.5}
while [[ ${1:-} == --version || ${1:-} == --version=* ]]; do
	if [[ $1 == --version=* ]]; then
		OLLAMA_VERSION=${1#--version=}
		shift
	else
		[[ $# -ge 2 ]] || {
			echo "realserver: --version needs a value (e.g. --version v0.17.4)" >&2
			exit 2
		}
		OLLAMA_VERSION=$2
		shift 2
	fi
done
[[ ${OLLAMA_VERSION} == v* ]] || OLLAMA_VERSION=v${OLLAMA_VERSION}
[[ ${OLLAMA_VERSION} =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || {
	echo "realserver: version ${OLLAMA_VERSION} is not of the form vX.Y.Z" >&2
	exit 2
}

case ${OLLAMA_VERSION} in
v0.6.5) DEFAULT_PORT=11435 ;;
v0.17.4) DEFAULT_PORT=11436 ;;
*) DEFAULT_PORT= ;;
esac
PORT=${REALSERVER_PORT:-${DEFAULT_PORT}}
DIR=${REALSERVER_DIR:-${TMPDIR:-/tmp}/benchserve-realserver-${OLLAMA_VERSION}}
MODEL=${REALSERVER_MODEL:-tiny}
TOOLS_MODEL=${REALSERVER_TOOLS_MODEL:-${MODEL}-tools}
READY_TIMEOUT=${REALSERVER_READY_TIMEOUT:-60}
GOBIN_DIR=${REALSERVER_GOBIN:-${XDG_CACHE_HOME:-${HOME}/.cache}/benchserve/ollama/${OLLAMA_VERSION}/bin}
HOSTPORT=127.0.0.1:${PORT}
URL=http://${HOSTPORT}
PIDFILE=${DIR}/ollama.pid
LOGFILE=${DIR}/ollama.log
# The value Ollama's release builds stamp (the tag without "v"); /api/version reports it.
STAMP=github.com/ollama/ollama/version.Version=${OLLAMA_VERSION#v}

log() { echo "realserver ${OLLAMA_VERSION}: $*" >&2; }
die() {
	log "error: $*"
	exit 1
}

# ollama_bin prints the path of the ollama binary to use.
ollama_bin() {
	echo "${OLLAMA_BIN:-${GOBIN_DIR}/ollama}"
}

# pinned reports whether the binary was built from ollama at OLLAMA_VERSION.
# `ollama --version` cannot tell for an unstamped build (go install reports
# 0.0.0), so read the module version from the build info.
pinned() {
	local bin=$1
	[[ -x ${bin} ]] || return 1
	go version -m "${bin}" 2>/dev/null | awk '$1 == "mod" && $2 == "github.com/ollama/ollama" { print $3 }' | grep -qx "${OLLAMA_VERSION}"
}

# stamped reports whether the binary reports OLLAMA_VERSION on /api/version.
stamped() {
	go version -m "$1" 2>/dev/null | awk '$1 == "build" && $2 ~ /^-ldflags=/' | grep -qF -- "-X=${STAMP}"
}

# vendor_dir prints the directory with v0.17.4's missing headers, or dies
# saying where it looked.
vendor_dir() {
	local dir=${OLLAMA_VENDOR_DIR:-}
	if [[ -z ${dir} ]]; then
		# ../shared next to the repository, or next to the main worktree or
		# the origin of a clone (scripts/shared-dir.sh).
		dir=$("${ROOT}/scripts/shared-dir.sh" 2>/dev/null || echo "${ROOT}/../shared")/vendor/ollama-${OLLAMA_VERSION}
	fi
	local f missing=()
	for f in miniaudio/miniaudio.h nlohmann/json.hpp nlohmann/json_fwd.hpp stb/stb_image.h; do
		[[ -f ${dir}/${f} ]] || missing+=("${f}")
	done
	if ((${#missing[@]} > 0)); then
		die "ollama ${OLLAMA_VERSION}'s module zip omits four vendored C headers, and ${dir} lacks ${missing[*]}" \
			"(expected ../shared/vendor/ollama-${OLLAMA_VERSION} next to the repository; set OLLAMA_VENDOR_DIR to where they are)"
	fi
	# The physical path, so every clone shares one build cache entry.
	(cd "${dir}" && pwd -P)
}

# apt_nlohmann installs the JSON header ollama v0.6.5's cgo build includes.
apt_nlohmann() {
	[[ -f /usr/include/nlohmann/json.hpp ]] && return
	log "installing nlohmann-json3-dev (needed by ollama's cgo build)"
	local sudo=()
	[[ $(id -u) -eq 0 ]] || sudo=(sudo)
	"${sudo[@]}" apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq nlohmann-json3-dev >&2
}

cmd_install() {
	local bin
	bin=$(ollama_bin)
	if [[ -n ${OLLAMA_BIN:-} ]]; then
		# A binary the caller chose is checked, never overwritten.
		pinned "${bin}" || die "OLLAMA_BIN=${bin} is not ollama ${OLLAMA_VERSION} (go version -m); unset it to build one"
		stamped "${bin}" || log "warning: ${bin} is not stamped with its version: /api/version will report 0.0.0"
		log "using OLLAMA_BIN=${bin}"
		return
	fi
	mkdir -p "${GOBIN_DIR}"
	# One build per version at a time; a second caller waits, then finds it built.
	exec 9>"${GOBIN_DIR}/.install.lock"
	flock 9
	if pinned "${bin}" && stamped "${bin}"; then
		log "ollama ${OLLAMA_VERSION} already installed at ${bin}"
		return
	fi
	local env=(GOBIN="${GOBIN_DIR}" GOFLAGS=-buildvcs=false)
	case ${OLLAMA_VERSION} in
	v0.17.4)
		local inc
		inc=$(vendor_dir)
		env+=(CGO_CPPFLAGS="-I${inc}")
		;;
	*) apt_nlohmann ;;
	esac
	log "building ollama ${OLLAMA_VERSION} into ${GOBIN_DIR} with go install (cgo, minutes on a cold cache)"
	local t0=${SECONDS}
	env "${env[@]}" go install -ldflags="-X=${STAMP}" "github.com/ollama/ollama@${OLLAMA_VERSION}" >&2
	pinned "${bin}" || die "go install finished but ${bin} is not ${OLLAMA_VERSION}"
	stamped "${bin}" || die "go install finished but ${bin} is not stamped with ${STAMP}"
	log "installed ${bin} in $((SECONDS - t0)) s"
}

cmd_bin() {
	ollama_bin
}

require_port() {
	[[ -n ${PORT} ]] || die "no default port for ${OLLAMA_VERSION}; set REALSERVER_PORT"
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

# reported prints the version the server on URL reports.
reported() {
	curl -fsS --max-time 2 "${URL}/api/version" 2>/dev/null | sed -n 's/.*"version":"\([^"]*\)".*/\1/p'
}

cmd_start() {
	require_port
	local bin
	bin=$(ollama_bin)
	[[ -x ${bin} ]] || die "no ollama binary at ${bin}; run: scripts/realserver.sh --version ${OLLAMA_VERSION} install"
	pinned "${bin}" || log "warning: ${bin} is not ollama ${OLLAMA_VERSION}; results may differ"
	stamped "${bin}" || log "warning: ${bin} is not stamped with its version: /api/version will report 0.0.0"
	mkdir -p "${DIR}/models"
	local t0=${SECONDS}

	if running && answers && { ! stamped "${bin}" || [[ $(reported) == "${OLLAMA_VERSION#v}" ]]; }; then
		log "server already running (pid $(cat "${PIDFILE}")) at ${URL}"
	else
		if running; then
			log "pid $(cat "${PIDFILE}") does not answer as ${OLLAMA_VERSION}; restarting it"
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
	# The same model with a template that takes tools, so the conformance
	# suite's tool contracts reach the server's tool handling instead of
	# its "does not support tools" refusal. Without tools in the request it
	# renders the same prompt as MODEL.
	cat >"${DIR}/Modelfile.tools" <<EOF
FROM ${DIR}/tiny.gguf
TEMPLATE """{{- if .Tools }}<|tools|>
{{ range .Tools }}{{ .Function.Name }}
{{ end }}{{ end }}{{- range .Messages }}<|{{ .Role }}|>
{{ .Content }}{{ range .ToolCalls }}{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}{{ end }}
{{ end }}<|assistant|>
"""
PARAMETER num_ctx 8192
PARAMETER num_thread 1
EOF
	local m file
	for m in "${MODEL}" "${TOOLS_MODEL}"; do
		file=${DIR}/Modelfile
		[[ ${m} == "${MODEL}" ]] || file=${DIR}/Modelfile.tools
		OLLAMA_HOST=${HOSTPORT} "${bin}" create "${m}" -f "${file}" </dev/null >"${DIR}/create.log" 2>&1 ||
			{
				cat "${DIR}/create.log" >&2
				die "ollama create ${m} failed"
			}
	done
	# Load the model now so the first measured request is not a cold load.
	curl -fsS --max-time "${READY_TIMEOUT}" "${URL}/api/generate" \
		-d "{\"model\":\"${MODEL}\",\"keep_alive\":\"1h\"}" >/dev/null ||
		{
			tail -n 40 "${LOGFILE}" >&2 || true
			die "loading ${MODEL} failed"
		}
	log "models ${MODEL} (loaded) and ${TOOLS_MODEL} registered; ready after $((SECONDS - t0)) s"
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
env)
	require_port
	print_env
	;;
bin) cmd_bin ;;
status)
	require_port
	if running && answers; then
		log "running (pid $(cat "${PIDFILE}"), version $(reported)) at ${URL}"
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
