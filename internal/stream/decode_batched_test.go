package stream_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/stream"
)

// TestDecodeBatched: 200 tokens in two flushes 2 ms apart span more than
// MinDecodeSpan but imply 100,000 tokens/s for one request: not a decode
// measurement. A steady stream of the same tokens is.
func TestDecodeBatched(t *testing.T) {
	reason, note := stream.DecodeObservable(2, 2*time.Millisecond, 200)
	assert.Equal(t, stream.DecodeBatched, reason, "two flushes of buffered tokens")
	assert.Contains(t, note, "200 tokens arrived in 2 chunks", "the note says what arrived")
	reason, _ = stream.DecodeObservable(200, 2*time.Second, 200)
	assert.Empty(t, reason, "10 ms per token over 2 s is a decode")
	reason, _ = stream.DecodeObservable(40, 3*time.Millisecond, 40)
	assert.Empty(t, reason, "0.077 ms per token (13,000 tok/s) is still believed")
	reason, _ = stream.DecodeObservable(1000, 20*time.Millisecond, 1000)
	assert.Empty(t, reason, "one token per chunk, each its own arrival: a fast stream, measured")
	reason, _ = stream.DecodeObservable(50, 2*time.Millisecond, 200)
	assert.Equal(t, stream.DecodeBatched, reason, "4 tokens a chunk at 100,000 tokens/s: batches")
}
