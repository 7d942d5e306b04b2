package stream_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

func ExampleClient_ChatStream() {
	// A loopback server answering with a fixed OpenAI-style stream.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"id":"chatcmpl-1","choices":[{"delta":{"role":"assistant"}}]}`+"\n\n"+
			`data: {"id":"chatcmpl-1","choices":[{"delta":{"content":"Hello"}}]}`+"\n\n"+
			`data: {"id":"chatcmpl-1","choices":[{"delta":{"content":" world"},"finish_reason":"stop"}]}`+"\n\n"+
			`data: {"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}`+"\n\n"+
			"data: [DONE]\n\n")
	}))
	defer srv.Close()

	c := &stream.Client{BaseURL: srv.URL, HTTP: srv.Client()}
	res, err := c.ChatStream(context.Background(), stream.Request{
		Model:    "my-model",
		Messages: []results.Message{{"role": "user", "content": "Say hello"}},
	})
	var httpErr *stream.HTTPError
	switch {
	case errors.As(err, &httpErr):
		fmt.Println("HTTP", httpErr.StatusCode, httpErr.Message)
	case errors.Is(err, stream.ErrPolicyTimeout):
		fmt.Println("timed out after", res.E2ELms, "ms")
	case err != nil:
		fmt.Println("failed:", err)
	}
	fmt.Printf("%q finish=%s id=%s tokens=%d/%d chunks=%d\n",
		res.Content, res.FinishReason, res.RequestID, res.PromptTokens, res.CompletionTokens, res.TokenChunks)
	// Output:
	// "Hello world" finish=stop id=chatcmpl-1 tokens=9/2 chunks=2
}
