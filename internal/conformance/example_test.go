package conformance_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/conformance"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/workloads"
)

// Run checks one contract, here the stream framing, on a fixture that
// keeps it and on one that ends its streams without data: [DONE].
func Example() {
	w, err := workloads.Parse([]byte(`{"cases": [{"id": "stream.framing", "messages": [{"role": "user", "content": "Say hello."}],
		"max_tokens": 8, "protocol": {"level": "MUST", "check": "stream_framing"}}]}`), "framing.json")
	if err != nil {
		panic(err)
	}
	c := w.Cases[0]
	spec := c.Protocol
	in := conformance.Input{Protocol: spec, Messages: c.Messages, MaxTokens: c.EffectiveMaxTokens()}
	for _, faults := range [][]fixtures.Fault{nil, {fixtures.Fault("no-done")}} {
		srv := fixtures.New(fixtures.Options{Faults: faults, Timing: &fixtures.Timing{}})
		out := conformance.Run(context.Background(), conformance.Target{Sender: clientSender{&stream.Client{BaseURL: srv.URL}}, Model: srv.Model()}, in)
		srv.Close()
		msg, _, _ := strings.Cut(out.Message("stream.framing", spec), "; sent:")
		fmt.Println(out.Verdict, "|", msg)
	}
	// Output:
	// pass | stream.framing (MUST): holds: 12 events, 11 chunks, then data: [DONE]
	// fail | stream.framing (MUST): the stream ended after 11 events without data: [DONE]; breaks: a stream is data: events of JSON chat.completion.chunk objects ending with data: [DONE] (https://platform.openai.com/docs/api-reference/chat/streaming)
}

// clientSender sends a contract's requests through a stream client, as the
// runner does.
type clientSender struct{ *stream.Client }

func (c clientSender) Stream(ctx context.Context, req stream.Request) (*stream.Result, error) {
	return c.ChatStream(ctx, req)
}
