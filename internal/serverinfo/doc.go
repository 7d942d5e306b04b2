// Package serverinfo describes the server under test and the machine the
// client runs on: runtime detection from /health, /v1/models and /v1/status
// (reference: auto_detect_runtime, parse_health_response,
// parse_status_response), the hardware fingerprint (reference:
// detect_hardware_fingerprint) and the server-side cache reset
// (reference: clear_runtime_cache).
//
// Every probe tolerates servers that lack the endpoint: Ollama and
// llama.cpp have no /v1/status, many proxies no /health. A missing endpoint
// leaves the matching fields at their zero values; it is never an error.
package serverinfo
