package streams_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

// TestCase01UsageAfterFinish: usage arrives after the finish chunk (or on
// every chunk, or with the finish) in a chunk with "choices": [] or null,
// next to unknown fields such as llama.cpp's "timings"; content: null on
// role and finish chunks is no text.
func TestCase01UsageAfterFinish(t *testing.T) {
	const id = "chatcmpl-u1"
	role := delta(id, `{"role":"assistant","content":null}`, "null")
	finish := delta(id, `{"content":null}`, `"stop"`)
	variants := map[string]string{
		"llama.cpp: choices [] with timings": sse(role) + sse(text(id, "Hello")) + sse(text(id, " world")) + sse(finish) +
			sse(`{"choices":[],"created":1717000000,"id":"`+id+`","model":"m","system_fingerprint":"b4000","object":"chat.completion.chunk","usage":{"completion_tokens":2,"prompt_tokens":75,"total_tokens":77},"timings":{"prompt_n":75,"prompt_ms":31.2,"predicted_n":2,"predicted_ms":20.1,"predicted_per_second":99.5}}`) + done,
		"openai: usage null on every chunk": sse(strings.Replace(role, `]}`, `],"usage":null}`, 1)) +
			sse(strings.Replace(text(id, "Hello"), `]}`, `],"usage":null}`, 1)) + sse(strings.Replace(text(id, " world"), `]}`, `],"usage":null}`, 1)) +
			sse(strings.Replace(finish, `]}`, `],"usage":null}`, 1)) + sse(usage(id, 75, 2)) + done,
		"choices null": sse(role) + sse(text(id, "Hello")) + sse(text(id, " world")) + sse(finish) +
			sse(`{"id":"`+id+`","choices":null,"usage":{"prompt_tokens":75,"completion_tokens":2,"total_tokens":77}}`) + done,
		"usage on the finish chunk": sse(role) + sse(text(id, "Hello")) + sse(text(id, " world")) +
			sse(strings.Replace(finish, `]}`, `],"usage":{"prompt_tokens":75,"completion_tokens":2,"total_tokens":77}}`, 1)) + done,
		"vllm continuous usage: last one wins": sse(strings.Replace(text(id, "Hello"), `]}`, `],"usage":{"prompt_tokens":75,"completion_tokens":1,"total_tokens":76}}`, 1)) +
			sse(strings.Replace(text(id, " world"), `]}`, `],"usage":{"prompt_tokens":75,"completion_tokens":2,"total_tokens":77}}`, 1)) +
			sse(finish) + sse(usage(id, 75, 2)) + done,
		"extra unknown keys everywhere": sse(role) +
			sse(`{"id":"`+id+`","choices":[{"index":0,"delta":{"content":"Hello","refusal":null,"audio":null},"logprobs":{"content":[]},"finish_reason":null,"stop_reason":null,"matched_stop":null}],"service_tier":"default","obfuscation":"aZ3"}`) +
			sse(text(id, " world")) + sse(finish) + sse(usage(id, 75, 2)) + done,
	}
	for name, transcript := range variants {
		t.Run(name, func(t *testing.T) {
			res, err := chat(t, body(t, transcript))
			require.NoError(t, err, "a complete stream with trailing usage must succeed")
			assert.Equal(t, "Hello world", res.Content, "content byte for byte; a null content is no text, never \"null\"")
			require.NotNil(t, res.Usage, "usage read from its own chunk")
			assert.Equal(t, results.Usage{PromptTokens: 75, CompletionTokens: 2, TotalTokens: 77}, *res.Usage, "usage 75/2/77")
			assert.Equal(t, 75, res.PromptTokens, "prompt tokens")
			assert.Equal(t, 2, res.CompletionTokens, "completion tokens")
			assert.Equal(t, "stop", res.FinishReason, "finish reason from the finish chunk")
			assert.Equal(t, 2, res.TokenChunks, "role, finish and usage chunks are not tokens")
			assert.Equal(t, id, res.RequestID, "request id")
			assert.True(t, res.Done, "read to [DONE]")
		})
	}
	t.Run("record", func(t *testing.T) {
		out := record(t, body(t, variants["llama.cpp: choices [] with timings"]), simpleCase("usage-after-finish", ""))
		rec := out.Record
		require.NoError(t, out.Err, "the case succeeds")
		assert.True(t, rec.OK, "record passes: %v", rec.Quality.Issues)
		assert.Equal(t, "", rec.Error, "no error")
		assert.Equal(t, 75, rec.Metrics.PromptTokens, "prompt tokens in the record")
		assert.Equal(t, 2, rec.Metrics.CompletionTokens, "completion tokens in the record")
		assert.True(t, rec.Metrics.UsagePresent, "usage present")
		assert.Equal(t, "Hello world", rec.Quality.ContentPreview, "preview")
		assert.Equal(t, 11, rec.Quality.ContentChars, "content chars")
		require.NotNil(t, rec.Quality.FinishReason, "finish reason recorded")
		assert.Equal(t, "stop", *rec.Quality.FinishReason, "finish reason")
	})
}

// TestCase02DataWithoutSpace: "data:" followed directly by the value (and
// other whitespace forms). Per the SSE standard only one U+0020 after the
// colon is dropped; anything else stays and must still decode as JSON
// (JSON allows leading whitespace), and the leading space inside a JSON
// string is content.
func TestCase02DataWithoutSpace(t *testing.T) {
	const id = "chatcmpl-ns"
	events := []string{delta(id, `{"role":"assistant"}`, "null"), text(id, "Hello"), text(id, " world"), text(id, "  !"), delta(id, `{}`, `"stop"`), usage(id, 9, 3)}
	join := func(prefix, doneLine string) string {
		var b strings.Builder
		for _, e := range events {
			b.WriteString(prefix + e + "\n\n")
		}
		return b.String() + doneLine + "\n\n"
	}
	variants := map[string]string{
		"no space":           join("data:", "data:[DONE]"),
		"tab":                join("data:\t", "data:\t[DONE]"),
		"two spaces":         join("data:  ", "data:  [DONE]"),
		"space before colon": join("data:", "data: [DONE] "),
		"mixed per event": "data:" + events[0] + "\n\n" + "data: " + events[1] + "\n\n" + "data:\t" + events[2] + "\n\n" +
			"data:" + events[3] + "\n\n" + "data: " + events[4] + "\n\n" + "data:" + events[5] + "\n\n" + "data:[DONE]\n\n",
		"JSON on several data lines": "data:{\"id\":\"" + id + "\",\"choices\":[{\"delta\":\ndata:{\"content\":\"Hello\"}}]}\n\n" +
			join("data:", "data:[DONE]")[len("data:"+events[0]+"\n\n"+"data:"+events[1]+"\n\n"):],
	}
	for name, transcript := range variants {
		t.Run(name, func(t *testing.T) {
			res, err := chat(t, body(t, transcript))
			require.NoError(t, err, "data events without a space are complete")
			assert.Equal(t, "Hello world  !", res.Content, "leading spaces inside JSON strings are content")
			assert.Equal(t, 3, res.TokenChunks, "three content events")
			assert.Equal(t, "stop", res.FinishReason, "finish reason")
			assert.True(t, res.Done, "data:[DONE] without a space ends the stream")
		})
	}
	t.Run("record", func(t *testing.T) {
		out := record(t, body(t, variants["no space"]), simpleCase("no-space", ""))
		require.NoError(t, out.Err, "the case succeeds")
		assert.Equal(t, "Hello world  !", out.Record.Quality.ContentPreview, "preview keeps the spaces")
		assert.Equal(t, 3, out.Record.Metrics.CompletionTokens, "usage completion tokens")
	})
}

// TestCase03CommentsAndFields: comments (sse-starlette's ": ping - <time>",
// a bare ":"), retry:, id:, event: message blocks, an event: ping with its
// own data. Exactly the data events are decoded, and TTFT is the first
// content event, not the first comment byte.
func TestCase03CommentsAndFields(t *testing.T) {
	const id = "chatcmpl-cm"
	t.Run("fields and comments", func(t *testing.T) {
		srv := raw(t,
			at(0, ": ping - 2025-06-01 12:00:00.000000+00:00\n\n:\n\nretry: 3000\n\n"),
			at(0, "id: 1\nevent: message\ndata: "+delta(id, `{"role":"assistant","content":""}`, "null")+"\n\n"),
			at(50*time.Millisecond, ": ping - 2025-06-01 12:00:00.050000+00:00\n\n"),
			at(50*time.Millisecond, ":keep-alive\nid:\nretry: soon\nfoo: bar\n\n"),
			at(50*time.Millisecond, "event: ping\ndata: {\"type\":\"ping\"}\n\n"),
			at(50*time.Millisecond, "id: 2\nevent: message\n: inside a block\ndata: "+text(id, "Hi")+"\n\n"),
			at(0, "id: 3\nevent: message\ndata: "+text(id, ", you")+"\nretry: 10\n\n"),
			at(0, "data\n\n"), // a field without a colon: empty data, a keep-alive
			at(0, "id: 4\nevent: message\ndata: "+delta(id, `{}`, `"stop"`)+"\n\n"+sse(usage(id, 4, 2))+"event: message\n"+done),
		)
		res, err := chat(t, srv)
		require.NoError(t, err, "comments and non-data fields are skipped")
		assert.Equal(t, "Hi, you", res.Content, "exactly the data events are decoded")
		assert.Equal(t, 2, res.TokenChunks, "two content events")
		if res.DecodeTiming == "" {
			assert.Len(t, res.ITLms, 1, "one gap")
		} else { // written back to back: usually read within 1 ms
			assert.Equal(t, stream.DecodeBurst, res.DecodeTiming, "two chunks: a burst, never a single chunk")
			assert.Nil(t, res.ITLms, "no gap from a burst")
		}
		assert.GreaterOrEqual(t, res.TTFTms, 200.0, "TTFT at the first content event (200 ms), not at the first comment")
		assert.LessOrEqual(t, res.TTFTms, 200.0+msOf(tol), "TTFT within tolerance")
		assert.Equal(t, "stop", res.FinishReason, "finish")
		assert.True(t, res.Done, "[DONE] in an event: message block")
	})
	t.Run("heartbeats only for 300 ms", func(t *testing.T) {
		parts := []fixtures.RawPart{}
		for range 6 {
			parts = append(parts, at(50*time.Millisecond, ": ping\n\n"))
		}
		parts = append(parts, at(0, sse(text(id, "late"))+sse(delta(id, `{}`, `"stop"`))+done))
		res, err := chat(t, raw(t, parts...))
		require.NoError(t, err, "stream succeeds")
		assert.Equal(t, "late", res.Content, "content")
		assert.GreaterOrEqual(t, res.TTFTms, 300.0, "pings do not count as the first token")
		assert.LessOrEqual(t, res.TTFTms, 300.0+msOf(tol), "TTFT within tolerance")
	})
	t.Run("record", func(t *testing.T) {
		srv := raw(t, at(0, ": ping\n\n"), at(150*time.Millisecond, sse(text(id, "x"))+sse(delta(id, `{}`, `"stop"`))+done))
		out := record(t, srv, simpleCase("comments", ""))
		require.NoError(t, out.Err, "the case succeeds")
		assert.GreaterOrEqual(t, out.Record.Metrics.TTFTms, 150.0, "record TTFT at the content event")
		assert.LessOrEqual(t, out.Record.Metrics.TTFTms, 150.0+msOf(tol), "record TTFT within tolerance")
	})
}

// TestCase04LineEndings: CRLF (with pings), lone CR and mixed line endings,
// and bodies whose last event has no blank line (or no newline) after it.
func TestCase04LineEndings(t *testing.T) {
	const id = "chatcmpl-le"
	evs := []string{delta(id, `{"role":"assistant"}`, "null"), text(id, "Hello"), text(id, " world"), delta(id, `{}`, `"stop"`), usage(id, 5, 2)}
	with := func(eol string) string {
		var b strings.Builder
		b.WriteString(": ping" + eol + eol)
		for _, e := range evs {
			b.WriteString("data: " + e + eol + eol + ":" + eol)
		}
		return b.String() + "data: [DONE]" + eol + eol
	}
	variants := map[string]string{
		"CRLF with pings":               with("\r\n"),
		"CR only":                       with("\r"),
		"LF":                            with("\n"),
		"DONE without final blank line": strings.TrimSuffix(with("\n"), "\n"),
		"DONE without any newline":      strings.TrimSuffix(with("\n"), "\n\n"),
		"CRLF, DONE without blank line": strings.TrimSuffix(with("\r\n"), "\r\n"),
		"CR, DONE without blank line":   strings.TrimSuffix(with("\r"), "\r"),
		"mixed": "data: " + evs[0] + "\r\n\r\n: ping\r\n" + "data: " + evs[1] + "\n\r\n" + "data: " + evs[2] + "\r\r" +
			"data: " + evs[3] + "\r\n\n" + ": ping\r" + "data: " + evs[4] + "\n\r" + "data: [DONE]\r\n",
	}
	for name, transcript := range variants {
		t.Run(name, func(t *testing.T) {
			res, err := chat(t, body(t, transcript))
			require.NoError(t, err, "the stream is complete, not truncated")
			assert.Equal(t, "Hello world", res.Content, "content")
			assert.Equal(t, "stop", res.FinishReason, "finish reason")
			assert.Equal(t, id, res.RequestID, "request id")
			assert.True(t, noCR(res.Content, res.FinishReason, res.RequestID), "no \\r in any value")
			require.NotNil(t, res.Usage, "usage")
			assert.Equal(t, 5, res.Usage.PromptTokens, "usage prompt tokens")
			assert.True(t, res.Done, "[DONE] recognized")
		})
		t.Run(name+"/split every 3 bytes", func(t *testing.T) {
			res, err := chat(t, body(t, transcript), withReads(3))
			require.NoError(t, err, "the outcome does not depend on read sizes")
			assert.Equal(t, "Hello world", res.Content, "content")
			assert.True(t, res.Done, "[DONE] recognized")
		})
	}
	t.Run("record", func(t *testing.T) {
		out := record(t, body(t, variants["CRLF, DONE without blank line"]), simpleCase("crlf", ""))
		require.NoError(t, out.Err, "complete")
		assert.True(t, out.Record.OK, "passes: %v", out.Record.Quality.Issues)
		assert.Equal(t, "stop", *out.Record.Quality.FinishReason, "finish reason without \\r")
	})
}

// TestCase05LargeEventAndUTF8: one 200,000-byte event, then multi-byte
// text, read 1 and 7 bytes at a time (client reads and server writes),
// and a 4-byte emoji split across reads at every offset, in raw UTF-8 and
// as a JSON surrogate-pair escape.
func TestCase05LargeEventAndUTF8(t *testing.T) {
	const id = "chatcmpl-big"
	big := strings.Repeat("0123456789", 20_000)
	const word = "Zürich 修复 😀"
	transcript := sse(text(id, big)) + sse(text(id, word)) + sse(delta(id, `{}`, `"stop"`)) + done
	require.Greater(t, len(sse(text(id, big))), 200_000, "the first event is over 200,000 bytes")
	for _, n := range []int{1, 7} {
		t.Run("client reads of "+itoa(n)+" bytes", func(t *testing.T) {
			res, err := chat(t, body(t, transcript), withReads(n))
			require.NoError(t, err, "no \"token too long\": the event is under the 16 MiB limit")
			assert.Equal(t, big+word, res.Content, "content byte for byte")
			assert.NotContains(t, res.Content, "\uFFFD", "no replacement characters")
			assert.Equal(t, 2, res.TokenChunks, "two content events")
		})
		t.Run("server writes of "+itoa(n)+" bytes", func(t *testing.T) {
			tail := sse(text(id, word)) + sse(delta(id, `{}`, `"stop"`)) + done
			// Every write (a 20 kB event, then the UTF-8 tail) is flushed
			// n bytes at a time.
			srv := serve(t, fixtures.Script{ChunkedWrites: n, Raw: []fixtures.RawPart{{Data: sse(text(id, big[:20_000]))}, {Data: tail}}})
			res, err := chat(t, srv)
			require.NoError(t, err, "stream succeeds")
			assert.Equal(t, big[:20_000]+word, res.Content, "content byte for byte")
		})
	}
	for _, form := range []struct{ name, json string }{
		{"raw UTF-8", `"Zürich 修复 😀"`},
		{"JSON escapes", `"Z\u00fcrich \u4fee\u590d \ud83d\ude00"`},
	} {
		body := sse(delta(id, `{"content":`+form.json+`}`, "null")) + sse(delta(id, `{}`, `"stop"`)) + done
		emoji := strings.Index(body, "😀")
		if emoji < 0 {
			emoji = strings.Index(body, `\ud83d`)
		}
		width := 4
		if form.name == "JSON escapes" {
			width = 12
		}
		for k := 1; k < width; k++ {
			t.Run(form.name+"/emoji cut at +"+itoa(k), func(t *testing.T) {
				res, err := chat(t, bodyServer(t, body), withReads(0, emoji+k))
				require.NoError(t, err, "stream succeeds")
				assert.Equal(t, word, res.Content, "runes split across reads are rejoined")
			})
		}
	}
}

// bodyServer is body under another name, for use where a local variable
// shadows it.
func bodyServer(t *testing.T, text string) *fixtures.Server { return body(t, text) }

func itoa(n int) string { return strconv.Itoa(n) }
