package stream

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

func TestCompletionsStreamTextAndTimings(t *testing.T) {
	const firstAt, gap = 80 * time.Millisecond, 25 * time.Millisecond
	chunk := func(text, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return ev(`{"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":"` + text + `","logprobs":null,"finish_reason":` + f + `}]}`)
	}
	srv, bodies := endpointServer(t, "/v1/completions",
		part{Delay: firstAt, Data: chunk("Once", "")},
		part{Delay: firstAt + gap, Data: chunk(" upon", "")},
		part{Delay: firstAt + 2*gap, Data: chunk(" a", "length") +
			ev(`{"id":"cmpl-1","object":"text_completion","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}`) + done})
	res, err := newClient(srv).ChatStream(context.Background(), Request{Endpoint: workloads.EndpointCompletions, Model: "m", MaxTokens: 3,
		Messages: []results.Message{{"role": "system", "content": "Tell a story."}, {"role": "user", "content": "Go."}}})
	require.NoError(t, err, "a completions stream must succeed")
	assert.Equal(t, "Once upon a", res.Content, "content is the choices' text")
	assert.Equal(t, "length", res.FinishReason, "finish reason")
	assert.Equal(t, "cmpl-1", res.RequestID, "request id")
	assert.Equal(t, 3, res.CompletionTokens, "usage from the last chunk")
	assert.Equal(t, 3, res.TokenChunks, "three text chunks")
	assert.GreaterOrEqual(t, res.TTFTms, ms(firstAt), "TTFT at the scripted 80 ms")
	require.Len(t, *bodies, 1, "one request")
	b := (*bodies)[0]
	assert.Equal(t, "Tell a story.\nGo.", b["prompt"], "the prompt is the messages' text joined by newlines")
	assert.Equal(t, 3.0, b["max_tokens"], "max_tokens")
	assert.Equal(t, map[string]any{"include_usage": true}, b["stream_options"], "usage asked for")
	assert.NotContains(t, b, "messages", "no chat messages key")
}

func TestCompletionsStreamErrorChunk(t *testing.T) {
	srv, _ := endpointServer(t, "/v1/completions", whole(ev(`{"object":"error","message":"bad prompt","type":"BadRequestError","code":400}`))...)
	_, err := newClient(srv).ChatStream(context.Background(), Request{Endpoint: workloads.EndpointCompletions, Model: "m"})
	var se *ServerError
	require.ErrorAs(t, err, &se, "an error object in the stream fails the request")
	assert.Equal(t, "bad prompt", se.Message, "the server's message")
}

func TestChatStreamRefusesEmbeddings(t *testing.T) {
	res, err := (&Client{BaseURL: "http://127.0.0.1:1"}).ChatStream(context.Background(), Request{Endpoint: workloads.EndpointEmbeddings})
	require.Error(t, err, "embeddings are not streamed")
	assert.Contains(t, err.Error(), "Client.Embed", "the error says what to use")
	assert.NotNil(t, res, "a Result even so")
}
