package builtin_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/datasets"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/tokens"
	"github.com/benchserve/benchserve/internal/tokens/builtin"
)

func TestBuiltinCountsKnownTexts(t *testing.T) {
	for _, tc := range []struct {
		enc    string
		method tokens.Method
		text   string
		want   int
	}{
		// Counts from OpenAI's tiktoken for the same strings.
		{"cl100k_base", tokens.MethodBuiltinCl100k, "hello world", 2},
		{"o200k_base", tokens.MethodBuiltinO200k, "hello world", 2},
		{"cl100k_base", tokens.MethodBuiltinCl100k, "", 0},
	} {
		c, err := builtin.New(tc.enc)
		require.NoError(t, err)
		assert.Equal(t, tc.method, c.Method())
		n, err := c.Count(context.Background(), tc.text)
		require.NoError(t, err)
		assert.Equal(t, tc.want, n, "%s %q", tc.enc, tc.text)
	}
	_, err := builtin.New("p50k_base")
	assert.ErrorContains(t, err, `builtin encoding "p50k_base": want one of [o200k_base cl100k_base]`)
}

// BenchmarkCount measures the builtin tokenizer's throughput on a prompt
// of 512 single-token words and on ordinary prose, in tokens per second
// and nanoseconds per token.
func BenchmarkCount(b *testing.B) {
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog, and then it runs away! ", 64)
	words := datasets.NewPrompter().Text(loadgen.NewRand(1), 512)
	for _, enc := range builtin.Encodings {
		c, err := builtin.New(enc)
		require.NoError(b, err)
		for name, text := range map[string]string{"words512": words, "prose": prose} {
			b.Run(enc+"/"+name, func(b *testing.B) {
				n, _ := c.Count(context.Background(), text)
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					_, _ = c.Count(context.Background(), text)
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(n)*float64(b.N)), "ns/token")
			})
		}
	}
}
