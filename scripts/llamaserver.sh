#!/usr/bin/env bash
# llamaserver.sh: llama.cpp's llama-server for benchserve without a GPU.
#
# Builds llama-server (CPU only, cmake and g++ from Debian) from the vendored
# llama.cpp source, writes the tiny llama model (tools/tinymodel, its
# grammar-friendly "llama.cpp" variant), serves it on loopback with --jinja, a
# chat template that takes tools, /metrics and /v1/embeddings, so benchserve
# (and the integration tests in ./tests/integration) can run against a real
# server of another code base than Ollama.
#
# Usage:
#   scripts/llamaserver.sh install   # untar + cmake build into a cache dir keyed by the source's sha256 (~10-25 min cold on 2 cores)
#   scripts/llamaserver.sh start     # write model, serve, wait until it answers; prints the env on stdout
#   scripts/llamaserver.sh env       # print the env again
#   scripts/llamaserver.sh status    # exit 0 when the server answers
#   scripts/llamaserver.sh stop      # stop the server started by `start`
#   scripts/llamaserver.sh bin       # print the path of the binary `install` builds
#   scripts/llamaserver.sh commit    # print the source's upstream commit (9 digits), as the build reports it
#
# `start` prints exactly two lines on stdout (everything else goes to stderr):
#   BENCHSERVE_URL=http://127.0.0.1:11437
#   BENCHSERVE_MODEL=tiny
# so   env $(scripts/llamaserver.sh start) go test ./tests/integration/ -v   works
# (the same lines are written to $LLAMASERVER_DIR/env).
#
# The build is stamped with the source's upstream commit (read from the
# archive with git get-tar-commit-id), so GET /props reports
# "build_info": "b0-<commit>" (the archive has no history, so no build
# number); the integration tests key their pins on that commit.
#
# Environment (all optional):
#   LLAMA_SOURCE          the source archive (default vendor/llama.cpp/llama.cpp-c2b1518fd.tar.gz in the
#                         shared directory next to the repository, found by scripts/shared-dir.sh)
#   LLAMASERVER_CACHE     where `install` builds (default ${XDG_CACHE_HOME:-~/.cache}/benchserve/llama.cpp);
#                         one subdirectory per source sha256
#   LLAMASERVER_JOBS      parallel compile jobs (default 2)
#   LLAMA_SERVER_BIN      a llama-server binary to serve instead (install then only checks it runs)
#   LLAMASERVER_PORT      loopback port (default 11437; Ollama's scripts use 11435 and 11436)
#   LLAMASERVER_DIR       work dir for model, template, log, pid (default ${TMPDIR:-/tmp}/benchserve-llamaserver)
#   LLAMASERVER_MODEL     the model name the server answers to (default tiny)
#   LLAMASERVER_PARALLEL  server slots (default 4, as Ollama's OLLAMA_NUM_PARALLEL)
#   LLAMASERVER_API_KEY   an API key the server requires (passed in llama-server's LLAMA_API_KEY
#                         environment, never on its command line or in a file; default: none).
#                         Clients then send it as BENCHSERVE_API_KEY; /health and /v1/models stay public
#   LLAMASERVER_READY_TIMEOUT  seconds to wait for the server (default 60)
#
# Every subcommand is idempotent: install skips a build already made from
# the same source, start reuses a running server, stop is a no-op when
# nothing runs.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SOURCE_NAME=llama.cpp/llama.cpp-c2b1518fd.tar.gz
SOURCE=${LLAMA_SOURCE:-}
CACHE=${LLAMASERVER_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/benchserve/llama.cpp}
JOBS=${LLAMASERVER_JOBS:-2}
PORT=${LLAMASERVER_PORT:-11437}
DIR=${LLAMASERVER_DIR:-${TMPDIR:-/tmp}/benchserve-llamaserver}
MODEL=${LLAMASERVER_MODEL:-tiny}
PARALLEL=${LLAMASERVER_PARALLEL:-4}
READY_TIMEOUT=${LLAMASERVER_READY_TIMEOUT:-60}
HOSTPORT=127.0.0.1:${PORT}
URL=http://${HOSTPORT}
PIDFILE=${DIR}/llama-server.pid
LOGFILE=${DIR}/llama-server.log

log() { echo "llamaserver: $*" >&2; }
die() {
	log "error: $*"
	exit 1
}

# resolve_source sets SOURCE to the source archive, or dies saying where it
# looked.
resolve_source() {
	if [[ -z ${SOURCE} ]]; then
		local shared
		shared=$("${ROOT}/scripts/shared-dir.sh") || die "no shared directory with vendor/${SOURCE_NAME}; set LLAMA_SOURCE"
		SOURCE=${shared}/vendor/${SOURCE_NAME}
	fi
	[[ -f ${SOURCE} ]] || die "no llama.cpp source at ${SOURCE}; set LLAMA_SOURCE"
}

# source_sum prints the sha256 of the source archive (resolve_source first).
source_sum() {
	sha256sum "${SOURCE}" | cut -c1-64
}

# source_commit prints the upstream commit the source archive was made
# from (git archive records it), or dies. git get-tar-commit-id reads the
# first block only, so gzip may die of SIGPIPE: only the id counts.
source_commit() {
	local commit
	commit=$(gzip -dc "${SOURCE}" 2>/dev/null | git get-tar-commit-id 2>/dev/null || true)
	[[ ${commit} =~ ^[0-9a-f]{40}$ ]] || die "${SOURCE} carries no commit id (git get-tar-commit-id); it should be a git archive of upstream llama.cpp"
	echo "${commit}"
}

# build_dir prints the directory `install` builds the source into.
build_dir() {
	echo "${CACHE}/$(source_sum | cut -c1-16)"
}

# server_bin prints the path of the llama-server binary to use
# (resolve_source first unless LLAMA_SERVER_BIN is set).
server_bin() {
	if [[ -n ${LLAMA_SERVER_BIN:-} ]]; then
		echo "${LLAMA_SERVER_BIN}"
	else
		echo "$(build_dir)/build/bin/llama-server"
	fi
}

# need_source resolves the source unless a binary of the caller's is used.
need_source() {
	[[ -n ${LLAMA_SERVER_BIN:-} ]] || resolve_source
}

# apt_cmake installs cmake and g++ when missing (Debian packages).
apt_cmake() {
	command -v cmake >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1 && return
	log "installing cmake and g++ (needed to build llama-server)"
	local sudo=()
	[[ $(id -u) -eq 0 ]] || sudo=(sudo)
	"${sudo[@]}" apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq cmake g++ >&2
}

cmd_install() {
	if [[ -n ${LLAMA_SERVER_BIN:-} ]]; then
		# A binary the caller chose is checked, never overwritten.
		"${LLAMA_SERVER_BIN}" --version >/dev/null 2>&1 || die "LLAMA_SERVER_BIN=${LLAMA_SERVER_BIN} does not run"
		log "using LLAMA_SERVER_BIN=${LLAMA_SERVER_BIN}"
		return
	fi
	resolve_source
	local sum dir
	sum=$(source_sum)
	dir=$(build_dir)
	mkdir -p "${dir}"
	# One build per source at a time; a second caller waits, then finds it built.
	exec 9>"${dir}/.install.lock"
	flock 9
	if [[ -x ${dir}/build/bin/llama-server && -f ${dir}/built && $(cat "${dir}/built") == "${sum}" ]]; then
		log "llama-server already built at ${dir}/build/bin/llama-server"
		return
	fi
	apt_cmake
	local commit
	commit=$(source_commit)
	local t0=${SECONDS}
	log "unpacking ${SOURCE} (sha256 ${sum}, commit ${commit:0:9}) into ${dir}"
	rm -rf "${dir}/src" "${dir}/build" "${dir}/built"
	mkdir -p "${dir}/src"
	tar -xzf "${SOURCE}" -C "${dir}/src" --strip-components=1
	log "configuring (cmake; CPU only, no web UI)"
	# The web UI would download prebuilt assets and the app/ binary is not
	# in the archive; tests and examples are not needed for the server.
	cmake -S "${dir}/src" -B "${dir}/build" \
		-DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_CURL=OFF -DGGML_NATIVE=OFF \
		-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=Release \
		-DLLAMA_BUILD_COMMIT="${commit:0:9}" >"${dir}/configure.log" 2>&1 ||
		{
			tail -n 40 "${dir}/configure.log" >&2
			die "cmake configure failed (log ${dir}/configure.log)"
		}
	log "building llama-server with ${JOBS} jobs (log ${dir}/build.log)"
	cmake --build "${dir}/build" --target llama-server -j "${JOBS}" >"${dir}/build.log" 2>&1 ||
		{
			tail -n 40 "${dir}/build.log" >&2
			die "cmake build failed (log ${dir}/build.log)"
		}
	"${dir}/build/bin/llama-server" --version >/dev/null 2>&1 || die "the build finished but ${dir}/build/bin/llama-server does not run"
	echo "${sum}" >"${dir}/built"
	log "built ${dir}/build/bin/llama-server in $((SECONDS - t0)) s"
}

running() {
	[[ -f ${PIDFILE} ]] && kill -0 "$(cat "${PIDFILE}")" 2>/dev/null
}

# answers reports whether the server is up with its model loaded (/health
# is 503 while loading).
answers() {
	curl -fsS --max-time 2 "${URL}/health" >/dev/null 2>&1
}

print_env() {
	echo "BENCHSERVE_URL=${URL}"
	echo "BENCHSERVE_MODEL=${MODEL}"
}

# The chat template: the same plain role-tagged prompt as Ollama's "tiny"
# model, plus a tools block and the assistant's tool calls in the Hermes
# <tool_call> form that llama.cpp's chat parser recognizes and constrains
# with a grammar (tool_choice "required", a named function).
write_template() {
	cat >"$1" <<'EOF'
{%- if tools %}<|tools|>
{% for tool in tools %}{{ tool | tojson }}
{% endfor %}Answer a tool call as <tool_call>{"name": ..., "arguments": {...}}</tool_call>
{% endif %}
{%- for message in messages %}<|{{ message.role }}|>
{% if message.content is string %}{{ message.content }}{% endif %}
{%- if message.tool_calls %}{% for tc in message.tool_calls %}<tool_call>
{"name": "{{ tc.function.name }}", "arguments": {{ tc.function.arguments | tojson if tc.function.arguments is mapping else tc.function.arguments }}}
</tool_call>{% endfor %}{% endif %}
{% endfor %}
{%- if add_generation_prompt %}<|assistant|>
{% endif %}
EOF
}

cmd_start() {
	need_source
	local bin
	bin=$(server_bin)
	[[ -x ${bin} ]] || die "no llama-server binary at ${bin}; run: scripts/llamaserver.sh install"
	mkdir -p "${DIR}"
	local t0=${SECONDS}
	if running && answers; then
		log "server already running (pid $(cat "${PIDFILE}")) at ${URL}"
		print_env | tee "${DIR}/env"
		return
	fi
	if running; then
		log "pid $(cat "${PIDFILE}") does not answer; restarting it"
		cmd_stop
	fi
	if curl -sS --max-time 2 "${URL}/" >/dev/null 2>&1; then
		die "something else already answers on ${URL}; set LLAMASERVER_PORT"
	fi
	rm -f "${PIDFILE}"
	log "writing model ${DIR}/tiny.gguf"
	(cd "${ROOT}/tools/tinymodel" && go run . -variant llama.cpp -o "${DIR}/tiny.gguf") >&2
	write_template "${DIR}/template.jinja"
	log "starting ${bin} on ${HOSTPORT} (log ${LOGFILE})"
	# One thread: two spinning threads on a busy 2-core machine make
	# generation slower and latencies erratic (as with Ollama). Embeddings
	# (mean pooling) are served by the same instance beside generation.
	local keyenv=()
	[[ -z ${LLAMASERVER_API_KEY:-} ]] || keyenv=(LLAMA_API_KEY="${LLAMASERVER_API_KEY}")
	env -u LLAMA_API_KEY "${keyenv[@]}" setsid "${bin}" --host 127.0.0.1 --port "${PORT}" \
		--model "${DIR}/tiny.gguf" --alias "${MODEL}" \
		--jinja --chat-template-file "${DIR}/template.jinja" \
		--ctx-size $((8192 * PARALLEL)) --parallel "${PARALLEL}" --threads 1 --threads-batch 1 \
		--temp 1 --top-p 1 --metrics --embeddings --pooling mean --no-ui \
		</dev/null >"${LOGFILE}" 2>&1 &
	echo $! >"${PIDFILE}"
	local deadline=$((SECONDS + READY_TIMEOUT))
	until answers; do
		if ! running; then
			tail -n 40 "${LOGFILE}" >&2 || true
			die "llama-server exited during startup"
		fi
		if ((SECONDS >= deadline)); then
			tail -n 40 "${LOGFILE}" >&2 || true
			die "server not ready after ${READY_TIMEOUT} s"
		fi
		sleep 0.25
	done
	log "server ready after $((SECONDS - t0)) s ($(curl -fsS --max-time 2 "${URL}/props" | sed -n 's/.*"build_info":"\([^"]*\)".*/build \1/p'))"
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
	rm -f "${PIDFILE}"
	log "stopped"
}

case ${1:-} in
install) cmd_install ;;
start) cmd_start ;;
stop) cmd_stop ;;
env) print_env ;;
bin)
	need_source
	server_bin
	;;
commit)
	resolve_source
	source_commit | cut -c1-9
	;;
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
