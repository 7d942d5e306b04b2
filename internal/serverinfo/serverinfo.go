package serverinfo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/openai"
	"github.com/benchserve/benchserve/internal/py"
	"github.com/benchserve/benchserve/results"
)

// probeTimeout bounds each metadata probe, so a server that accepts and
// never answers /health cannot stall a run before its first case.
const probeTimeout = 10 * time.Second

// maxProbeBody caps how much of a metadata answer is read.
const maxProbeBody = 1 << 20

// Prober issues the metadata requests. The zero value uses
// http.DefaultClient semantics with no API key.
type Prober struct {
	// BaseURL is the server root, e.g. "http://127.0.0.1:8080".
	BaseURL string
	// APIKey, when set, is sent as "Authorization: Bearer <key>".
	APIKey string
	// HTTP is the client to use; nil means a client with a 10 s timeout.
	HTTP *http.Client
}

func (p *Prober) client() *http.Client {
	if p.HTTP != nil {
		return p.HTTP
	}
	return &http.Client{Timeout: probeTimeout}
}

// do sends one request and returns the status and body (at most 1 MiB).
func (p *Prober) do(ctx context.Context, method, path string) (int, []byte, http.Header, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(p.BaseURL, "/")+path, nil)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("serverinfo: %s %s: %w", method, path, err)
	}
	openai.Authorize(req.Header, p.APIKey)
	resp, err := p.client().Do(req)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("serverinfo: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProbeBody))
	if err != nil {
		return resp.StatusCode, nil, resp.Header, fmt.Errorf("serverinfo: %s %s: read body: %w", method, path, err)
	}
	return resp.StatusCode, body, resp.Header, nil
}

// getJSON GETs path and decodes a JSON object; ok is false for any
// transport error, non-2xx status or non-object body.
func (p *Prober) getJSON(ctx context.Context, path string) (map[string]any, http.Header, bool) {
	status, body, hdr, err := p.do(ctx, http.MethodGet, path)
	if err != nil || status < 200 || status > 299 {
		return nil, hdr, false
	}
	var out map[string]any
	if json.Unmarshal(body, &out) != nil || out == nil {
		return nil, hdr, false
	}
	return out, hdr, true
}

// UnreachableError is returned by Models when no HTTP answer came back at
// all (connection refused, DNS, timeout); Err is the transport error.
type UnreachableError struct{ Err error }

// Error returns "serverinfo: server unreachable: <transport error>".
func (e *UnreachableError) Error() string { return "serverinfo: server unreachable: " + e.Err.Error() }

// Unwrap returns the transport error.
func (e *UnreachableError) Unwrap() error { return e.Err }

// Models returns the model ids listed by GET /v1/models, in server order,
// or an error when the endpoint is missing or malformed (an
// *UnreachableError when the server did not answer at all, a *StatusError
// with the server's message for an HTTP error status).
func (p *Prober) Models(ctx context.Context) ([]string, error) {
	status, body, _, err := p.do(ctx, http.MethodGet, "/v1/models")
	if err != nil && status == 0 {
		return nil, &UnreachableError{Err: err}
	}
	if err == nil && status >= 400 {
		return nil, &StatusError{Path: "/v1/models", StatusCode: status, Message: serverMessage(body)}
	}
	var data map[string]any
	if err != nil || status < 200 || status > 299 || json.Unmarshal(body, &data) != nil || data == nil {
		return nil, fmt.Errorf("serverinfo: GET /v1/models: no model list at %s (HTTP %d)", p.BaseURL, status)
	}
	list, _ := data["data"].([]any)
	var ids []string
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			if id, ok := m["id"].(string); ok && id != "" {
				ids = append(ids, id)
			}
		}
	}
	return ids, nil
}

// Detect queries /health, /v1/models and /v1/status in that order and
// returns the runtime descriptor (reference: auto_detect_runtime). ModelID
// is the first model listed. Runtime.Server is a best-effort guess of the
// server software from the answers seen. It is DetectModel(ctx, "").
func (p *Prober) Detect(ctx context.Context) results.Runtime { return p.DetectModel(ctx, "") }

// DetectModel is Detect for a run that uses model: the /v1/models entry
// read is that model's (ModelID is model when it is listed), not the
// first listed — Ollama lists the newest model first, and its owned_by is
// the model name's namespace ("library" for "tiny", "acme" for
// "acme/tiny"), so the first entry says nothing about the model run. With
// model "" or not listed, the first entry is read, as the reference does.
// Runtime.Server comes from that entry's owned_by, the Server header, and
// then from endpoints only one server software has: Ollama answers
// GET /api/version with {"version": …}; /v1/status means vllm-mlx.
func (p *Prober) DetectModel(ctx context.Context, model string) results.Runtime {
	var rt results.Runtime
	if health, _, ok := p.getJSON(ctx, "/health"); ok {
		rt.ModelType = str(health["model_type"])
	}
	if data, hdr, ok := p.getJSON(ctx, "/v1/models"); ok {
		if entry := modelEntry(data, model); entry != nil {
			rt.ModelID = str(entry["id"])
			rt.Server = guessServer(str(entry["owned_by"]), hdr)
		}
	}
	if status, _, ok := p.getJSON(ctx, "/v1/status"); ok {
		metal := ParseStatus(status)
		rt.CacheType = metal.CacheType
		rt.MetalActiveGB = metal.MetalActiveGB
		rt.MetalPeakGB = metal.MetalPeakGB
		rt.MetalCacheGB = metal.MetalCacheGB
		rt.EngineType = str(status["engine_type"])
		rt.MTPEnabled = py.Truthy(status["mtp_enabled"])
		rt.SpecPrefill = py.Truthy(status["specprefill"])
		rt.KVQuant = str(status["kv_quant"])
		if rt.Server == "" {
			rt.Server = "vllm-mlx"
		}
	}
	if rt.Server == "" || rt.Server == "ollama" {
		if v, _, ok := p.getJSON(ctx, "/api/version"); ok && str(v["version"]) != "" {
			rt.Server = "ollama"
		}
	}
	return rt
}

// modelEntry returns the /v1/models entry whose id is model, else the
// first entry (nil for an empty list).
func modelEntry(data map[string]any, model string) map[string]any {
	list, _ := data["data"].([]any)
	var first map[string]any
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		if first == nil {
			first = m
		}
		if model != "" && str(m["id"]) == model {
			return m
		}
	}
	return first
}

// guessServer names the server software from /v1/models' owned_by and the
// response headers; "" when nothing is recognisable. Ollama's owned_by is
// the model's namespace, so "library" (the default namespace) is a hint
// and any other namespace is found through /api/version instead.
func guessServer(ownedBy string, hdr http.Header) string {
	switch strings.ToLower(ownedBy) {
	case "vllm":
		return "vllm"
	case "llamacpp":
		return "llama.cpp"
	case "library", "ollama":
		return "ollama"
	case "benchserve":
		return "benchserve-fixture"
	case "sglang":
		return "sglang"
	}
	if hdr != nil && strings.Contains(strings.ToLower(hdr.Get("Server")), "llama") {
		return "llama.cpp"
	}
	return ""
}

// Status GETs /v1/status and returns its JSON object, or an empty map when
// the endpoint is missing (reference: _fetch_post_run_status).
func (p *Prober) Status(ctx context.Context) map[string]any {
	if data, _, ok := p.getJSON(ctx, "/v1/status"); ok {
		return data
	}
	return map[string]any{}
}

// ParseStatus extracts the memory and cache fields of a /v1/status answer
// (reference: parse_status_response): metal.active_memory_gb or
// metal.active_gb (likewise peak and cache), cache.type. Missing keys give
// zero values.
func ParseStatus(data map[string]any) results.Metal {
	metal, _ := data["metal"].(map[string]any)
	cache, _ := data["cache"].(map[string]any)
	return results.Metal{
		Model:         str(data["model"]),
		MetalActiveGB: firstNum(metal, "active_memory_gb", "active_gb"),
		MetalPeakGB:   firstNum(metal, "peak_memory_gb", "peak_gb"),
		MetalCacheGB:  firstNum(metal, "cache_memory_gb", "cache_gb"),
		CacheType:     str(cache["type"]),
	}
}

// ClearCache sends DELETE /v1/cache and reports the outcome (reference:
// clear_runtime_cache). It never returns an error: failures are recorded
// in the event, since a server without the endpoint must not stop a run.
func (p *Prober) ClearCache(ctx context.Context) results.CacheReset {
	ok := false
	code := 0
	errText := ""
	ev := results.CacheReset{Attempted: true, OK: &ok, StatusCode: &code, Response: map[string]any{}, Error: &errText}
	status, body, _, err := p.do(ctx, http.MethodDelete, "/v1/cache")
	code = status
	if err != nil {
		errText = err.Error()
		return ev
	}
	var decoded map[string]any
	if json.Unmarshal(body, &decoded) == nil && decoded != nil {
		ev.Response = decoded
	} else {
		ev.Response = map[string]any{"text": string(body)}
	}
	if status < 200 || status > 299 {
		errText = fmt.Sprintf("DELETE /v1/cache: HTTP %d", status)
		return ev
	}
	ok = true
	return ev
}

// Hardware returns the client machine's fingerprint (reference:
// detect_hardware_fingerprint). On Linux chip is the CPU model name and
// memory_gb the total RAM in GiB; gpu_cores and bandwidth_gbs are 0 where
// unknown. os_version reads like Python's platform.platform(), e.g.
// "Linux-6.1.0-18-amd64-x86_64".
func Hardware() results.Hardware {
	hw := results.Hardware{OSVersion: osVersion()}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				hw.Chip = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				f := strings.Fields(rest)
				if len(f) > 0 {
					if kb, err := strconv.ParseFloat(f[0], 64); err == nil {
						hw.MemoryGB = kb / (1024 * 1024)
					}
				}
				break
			}
		}
	}
	return hw
}

func osVersion() string {
	name := runtime.GOOS
	if len(name) > 0 {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	release := ""
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		release = strings.TrimSpace(string(data))
	}
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	if arch == "" {
		arch = runtime.GOARCH
	}
	parts := []string{name}
	if release != "" {
		parts = append(parts, release)
	}
	return strings.Join(append(parts, arch), "-")
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// firstNum returns the first of keys holding a non-zero number (Python's
// `a or b or 0.0`), accepting numeric strings.
func firstNum(m map[string]any, keys ...string) float64 {
	for _, k := range keys {
		switch x := m[k].(type) {
		case float64:
			if x != 0 {
				return x
			}
		case string:
			if f, err := strconv.ParseFloat(x, 64); err == nil && f != 0 {
				return f
			}
		}
	}
	return 0
}

// NormalizeBaseURL checks a server URL given by a user and returns the
// server root the API paths are appended to: it must be http or https
// with a host; trailing slashes and a trailing "/v1" are dropped, since
// OpenAI-style clients are usually given ".../v1" while benchserve
// appends "/v1/chat/completions" itself. The error says what is wrong;
// the URL it quotes is RedactURL's (no password or token in messages).
func NormalizeBaseURL(raw string) (string, error) {
	trimmed := strings.TrimSpace(raw)
	if !strings.Contains(trimmed, "://") {
		return "", fmt.Errorf("serverinfo: server URL %q: want http:// or https:// and a host, e.g. http://127.0.0.1:8080", RedactURL(raw))
	}
	u, err := url.Parse(trimmed)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) { // its message quotes the URL unredacted
			err = ue.Err
		}
		return "", fmt.Errorf("serverinfo: server URL %q: %w", RedactURL(raw), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("serverinfo: server URL %q: want http:// or https:// and a host, e.g. http://127.0.0.1:8080", RedactURL(raw))
	}
	if u.Host == "" {
		return "", fmt.Errorf("serverinfo: server URL %q: no host", RedactURL(raw))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("serverinfo: server URL %q: a server root takes no query or fragment", RedactURL(raw))
	}
	path := strings.TrimRight(u.Path, "/")
	path = strings.TrimSuffix(path, "/v1")
	u.Path, u.RawPath = strings.TrimRight(path, "/"), ""
	return u.String(), nil
}
