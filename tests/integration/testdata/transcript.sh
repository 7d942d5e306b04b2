#!/usr/bin/env bash
# Regenerates a transcript against scripts/realserver.sh start (model tiny):
#   tests/integration/testdata/transcript.sh > tests/integration/testdata/ollama-transcript.txt          # v0.6.5
#   env $(scripts/realserver.sh --version v0.17.4 env) tests/integration/testdata/transcript.sh \
#     > tests/integration/testdata/ollama-v0.17.4-transcript.txt
set -euo pipefail
B=${BENCHSERVE_URL:-http://127.0.0.1:11435}
V=$(curl -fsS "$B/api/version" | sed -n 's/.*"version":"\([^"]*\)".*/\1/p')
show() { # title, curl args...
	local title=$1; shift
	{ printf '### %s\n$ curl -sN -i' "$title"; printf " '%s'" "$@"; printf '\n'; } | sed "s|$B|\$BENCHSERVE_URL|g"
	curl -sN -i "$@" | tr -d '\r' | grep -v '^Date: '
	printf '\n'
}
C=$B/v1/chat/completions
echo "# Ollama v$V (go install, version stamped) serving tools/tinymodel as \"tiny\""
echo "# via scripts/realserver.sh start. Verbatim except: Date headers removed, CR stripped from"
echo "# header lines (the SSE bodies contain no CR). Regenerate with tests/integration/testdata/transcript.sh (see its head)."
echo
show "stream with include_usage, max_tokens 5 (ends by length)" "$C" -d '{"model":"tiny","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true},"max_tokens":5,"seed":7}'
show "stream, seed 9, max_tokens 40 (ends by </s>: finish_reason stop)" "$C" -d '{"model":"tiny","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true},"max_tokens":40,"seed":9}'
show "stream without stream_options: no usage chunk" "$C" -d '{"model":"tiny","messages":[{"role":"user","content":"hi"}],"stream":true,"max_tokens":3,"seed":7}'
show "non-streaming" "$C" -d '{"model":"tiny","messages":[{"role":"user","content":"hi"}],"max_tokens":5,"seed":7}'
show "unknown model (stream requested): 404 JSON, no stream" "$C" -d '{"model":"nope","messages":[{"role":"user","content":"hi"}],"stream":true}'
show "empty messages: 400" "$C" -d '{"model":"tiny","messages":[],"stream":true}'
show "malformed JSON: 400" "$C" -d '{"model":'
show "tools on a template without tools: 400" "$C" -d '{"model":"tiny","messages":[{"role":"user","content":"hi"}],"stream":true,"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]}'
echo "### temperature 0: greedy repeats \" the\"; after 30 identical tokens Ollama aborts the"
echo "### prediction and the body just ends: no finish_reason, no usage, no [DONE] (last 3 events shown)"
echo "\$ curl -sN \$BENCHSERVE_URL/v1/chat/completions -d '{\"model\":\"tiny\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true,\"stream_options\":{\"include_usage\":true},\"max_tokens\":200,\"temperature\":0}' | tail -n 6"
curl -sN "$C" -d '{"model":"tiny","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true},"max_tokens":200,"temperature":0}' | tail -n 6
echo "<end of body>"
echo
for p in /health /metrics /v1/status /v1/models /api/version /; do show "GET $p" "$B$p"; done
show "POST /v1/requests/{id}/cancel" -X POST "$B/v1/requests/chatcmpl-1/cancel"
show "DELETE /v1/cache" -X DELETE "$B/v1/cache"
