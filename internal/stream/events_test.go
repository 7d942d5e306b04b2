package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/stream"
)

func TestKeepEventsKeepsTheRawStreamBounded(t *testing.T) {
	sc := fixtures.Script{RoleChunk: true, Content: []string{"a", " b", " c"}}
	_, res, err := fixtureChat(t, sc, stream.Request{Model: fixtures.DefaultModel, KeepEvents: 3})
	require.NoError(t, err)
	require.Len(t, res.Events, 3, "only the first KeepEvents events are kept")
	assert.Greater(t, res.EventsSeen, 3, "every event is counted")
	var first struct {
		Choices []struct {
			Delta struct {
				Role string `json:"role"`
			} `json:"delta"`
		} `json:"choices"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Events[0].Data), &first), "the event's data as sent")
	assert.Equal(t, "assistant", first.Choices[0].Delta.Role)

	_, none, err := fixtureChat(t, sc, stream.Request{Model: fixtures.DefaultModel})
	require.NoError(t, err)
	assert.Nil(t, none.Events, "no events kept unless asked")
}

func TestRequestBodyIsSentAsGiven(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	c := &stream.Client{BaseURL: srv.URL}
	body := `{"model":"` + fixtures.DefaultModel + `","messages":[{"role":"user","content":"hi"}],"stream":true,"max_completion_tokens":3}`
	res, err := c.ChatStream(context.Background(), stream.Request{Body: []byte(body)})
	require.NoError(t, err)
	assert.Equal(t, "length", res.FinishReason, "max_completion_tokens of the given body applied")
	reqs := srv.ChatRequests()
	require.Len(t, reqs, 1)
	assert.Equal(t, body, string(reqs[0].RawBody), "the body went out byte for byte")
}

func TestStopAfterChunksClosesTheStream(t *testing.T) {
	sc := fixtures.Script{Content: strings.Fields(strings.Repeat("word ", 50))}
	_, res, err := fixtureChat(t, sc, stream.Request{Model: fixtures.DefaultModel, StopAfterChunks: 2})
	require.Error(t, err)
	assert.True(t, errors.Is(err, stream.ErrStopped), "ErrStopped: %v", err)
	assert.Equal(t, 2, res.TokenChunks, "the client stopped after two token chunks")
	assert.False(t, res.Done)
}
