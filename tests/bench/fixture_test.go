package bench_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

// childEnv makes the test binary serve the fixture instead of running
// tests (see TestMain): the parent benchmark starts it so that the
// server's CPU and allocations are not the client's.
const childEnv = "BENCHSERVE_BENCH_FIXTURE_CHILD"

// shape is how the fixture answers a benchmark request; it travels in the
// request body (stream.Request.ExtraBody "bench"), so one fixture process
// serves every benchmark.
type shape struct {
	Tokens     int
	TTFT       time.Duration
	TokenDelay time.Duration
	Hang       bool
	// Sent, when not zero, is when the client started the request (wall
	// clock, shared by the processes of one machine): the fixture records
	// how long after it its responder ran (see intakeLags).
	Sent time.Time
}

func (s shape) request() stream.Request {
	m := map[string]any{
		"tokens": s.Tokens, "ttft_ns": s.TTFT.Nanoseconds(), "token_delay_ns": s.TokenDelay.Nanoseconds(), "hang": s.Hang,
	}
	if !s.Sent.IsZero() {
		m["sent_unix_ns"] = s.Sent.UnixNano()
	}
	return stream.Request{
		Model:     fixtures.DefaultModel,
		Messages:  []results.Message{{"role": "user", "content": "bench"}},
		MaxTokens: s.Tokens + 1,
		ExtraBody: map[string]any{"bench": m},
	}
}

// intake records, in the fixture's process, the intake lag of requests
// carrying sent_unix_ns: from the client starting the request to the
// fixture's responder running (the client's send path, the kernel, and
// the server's accept, read and parsing), in milliseconds. The scripted
// TTFT only starts counting at the responder, so this lag is part of the
// TTFT error that neither the client's reading nor the server's timer
// causes.
var intake struct {
	sync.Mutex
	ms map[string]float64 // by request id
}

// takeIntake returns the intake lags recorded since the last call, by
// request id.
func takeIntake() map[string]float64 {
	intake.Lock()
	defer intake.Unlock()
	out := intake.ms
	intake.ms = nil
	return out
}

// words are the streamed tokens, cycled.
var words = []string{" the", " quick", " brown", " fox", " jumps", " over", " a", " lazy", " dog", "."}

// respond builds the Script a request's shape asks for.
func respond(req fixtures.Request) fixtures.Script {
	m, _ := req.Body["bench"].(map[string]any)
	num := func(k string) int64 { f, _ := m[k].(float64); return int64(f) }
	n := int(num("tokens"))
	content := make([]string, n)
	for i := range content {
		content[i] = words[i%len(words)]
	}
	hang, _ := m["hang"].(bool)
	if sent, ok := m["sent_unix_ns"].(float64); ok {
		lag := float64(time.Now().UnixNano()-int64(sent)) / float64(time.Millisecond)
		intake.Lock()
		if intake.ms == nil {
			intake.ms = map[string]float64{}
		}
		intake.ms[req.ID] = lag
		intake.Unlock()
	}
	return fixtures.Script{
		Content:    content,
		TTFT:       time.Duration(num("ttft_ns")),
		TokenDelay: time.Duration(num("token_delay_ns")),
		Hang:       hang,
	}
}

// serveChild runs the fixture until stdin closes, printing its URL first
// and then the URL of a second loopback server whose GET / answers the
// intake lags recorded since the last call (JSON object: request id to
// ms).
func serveChild() {
	srv := fixtures.New(fixtures.Options{Responder: respond, MaxModelLen: benchContext})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stats := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(takeIntake())
	})}
	go func() { _ = stats.Serve(l) }()
	fmt.Println(srv.URL)
	fmt.Println("http://" + l.Addr().String())
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = stats.Close()
	srv.Close()
}

// server is a fixture for a benchmark: in this process or in a child.
type server struct {
	URL string
	// intake returns the fixture's intake lags since the last call, by
	// request id.
	intake func() (map[string]float64, error)
	stop   func()
}

func startServer(tb testing.TB, mode string) *server {
	tb.Helper()
	if mode == "inproc" {
		srv := fixtures.New(fixtures.Options{Responder: respond, MaxModelLen: benchContext})
		return &server{URL: srv.URL, stop: srv.Close, intake: func() (map[string]float64, error) { return takeIntake(), nil }}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	br := bufio.NewReader(stdout)
	line, err := br.ReadString('\n')
	var statsLine string
	if err == nil {
		statsLine, err = br.ReadString('\n')
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		tb.Fatalf("fixture child: %v", err)
	}
	statsURL := strings.TrimSpace(statsLine)
	return &server{URL: strings.TrimSpace(line), stop: func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	}, intake: func() (map[string]float64, error) {
		resp, err := http.Get(statsURL)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		var ms map[string]float64
		return ms, json.NewDecoder(resp.Body).Decode(&ms)
	}}
}

// newClient returns a stream client keeping up to conns connections, on
// the transport benchserve's clients use (stream.NewTransport), and a
// counter of the connections it dialled.
func newClient(url string, conns int) (*stream.Client, *http.Transport, *atomic.Int64) {
	tr := stream.NewTransport(conns)
	tr.MaxIdleConns = conns + 10
	tr.MaxIdleConnsPerHost = conns + 10
	dials := new(atomic.Int64)
	var d net.Dialer
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return d.DialContext(ctx, network, addr)
	}
	return &stream.Client{BaseURL: url, HTTP: &http.Client{Transport: tr}}, tr, dials
}
