package bench_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/openai"
	"github.com/benchserve/benchserve/stream"
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
}

func (s shape) request() stream.Request {
	return stream.Request{
		Model:     "bench",
		Messages:  []openai.Message{{"role": "user", "content": "bench"}},
		MaxTokens: s.Tokens + 1,
		ExtraBody: map[string]any{"bench": map[string]any{
			"tokens": s.Tokens, "ttft_ns": s.TTFT.Nanoseconds(), "token_delay_ns": s.TokenDelay.Nanoseconds(), "hang": s.Hang,
		}},
	}
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
	return fixtures.Script{
		Content:    content,
		TTFT:       time.Duration(num("ttft_ns")),
		TokenDelay: time.Duration(num("token_delay_ns")),
		Hang:       hang,
	}
}

// serveChild runs the fixture until stdin closes, printing its URL first.
func serveChild() {
	srv := fixtures.New(fixtures.Options{Responder: respond})
	fmt.Println(srv.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
	srv.Close()
}

// server is a fixture for a benchmark: in this process or in a child.
type server struct {
	URL  string
	stop func()
}

func startServer(tb testing.TB, mode string) *server {
	tb.Helper()
	if mode == "inproc" {
		srv := fixtures.New(fixtures.Options{Responder: respond})
		return &server{URL: srv.URL, stop: srv.Close}
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
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		tb.Fatalf("fixture child: %v", err)
	}
	return &server{URL: strings.TrimSpace(line), stop: func() {
		_ = stdin.Close()
		_ = cmd.Wait()
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
