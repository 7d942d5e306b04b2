package conformance_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/contract"
)

// status answers every request with code and an error object.
func status(code int, msg string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"error":{"message":"` + msg + `","type":"invalid_request_error"}}`))
	})
}

func TestCompletionsEchoAndLogprobsRefusedAreUnsupported(t *testing.T) {
	for _, id := range []string{"completions.echo", "completions.logprobs"} {
		o := judgeOn(t, id, status(http.StatusBadRequest, "Only no echo is supported"))
		assert.Equal(t, contract.Unsupported, o.Verdict, "%s refused with 400: %s", id, o.Evidence)
		assert.Contains(t, o.Evidence, "HTTP 400: ", "%s: the evidence quotes the refusal", id)
		o = judgeOn(t, id, status(http.StatusInternalServerError, "Only no echo is supported"))
		assert.Equal(t, contract.Fail, o.Verdict, "%s answered 500: %s", id, o.Evidence)
		o = judgeOn(t, id, http.NotFoundHandler())
		assert.Equal(t, contract.Skip, o.Verdict, "%s on a server without /v1/completions: %s", id, o.Evidence)
	}
}

func TestCompletionsLogprobsJudgesTheLegacyShape(t *testing.T) {
	answer := func(logprobs string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"object":"text_completion","choices":[{"index":0,"text":"ab c","logprobs":` + logprobs + `,"finish_reason":"length"}]}`))
		})
	}
	for _, tc := range []struct{ name, logprobs, verdict, cause string }{
		{"legacy", `{"tokens":["ab"," c"],"token_logprobs":[-0.1,-2],"top_logprobs":[{"ab":-0.1},{" c":-2,"x":-3}],"text_offset":[0,2]}`, "pass", "2 tokens joined are the text"},
		{"null", `null`, "fail", "choices[0].logprobs is null"},
		{"lengths differ", `{"tokens":["ab"," c"],"token_logprobs":[-0.1],"top_logprobs":[{"ab":-0.1},{" c":-2}],"text_offset":[0,2]}`, "fail", "not one length"},
		{"tokens are not the text", `{"tokens":["ab","c"],"token_logprobs":[-0.1,-2],"top_logprobs":[{"ab":-0.1},{"c":-2}],"text_offset":[0,2]}`, "fail", "are not the text"},
		{"positive logprob", `{"tokens":["ab"," c"],"token_logprobs":[0.5,-2],"top_logprobs":[{"ab":-0.1},{" c":-2}],"text_offset":[0,2]}`, "fail", "token_logprobs[0] is 0.5"},
		{"too many alternatives", `{"tokens":["ab"," c"],"token_logprobs":[-0.1,-2],"top_logprobs":[{"ab":-0.1},{" c":-2,"x":-3,"y":-4,"z":-5}],"text_offset":[0,2]}`, "fail", "top_logprobs[1] has 4 entries"},
		{"offsets decrease", `{"tokens":["ab"," c"],"token_logprobs":[-0.1,-2],"top_logprobs":[{"ab":-0.1},{" c":-2}],"text_offset":[2,0]}`, "fail", "text_offset[1] 0 < text_offset[0] 2"},
	} {
		o := judgeOn(t, "completions.logprobs", answer(tc.logprobs))
		assert.Equal(t, contract.Verdict(tc.verdict), o.Verdict, "%s: %s", tc.name, o.Evidence)
		assert.Contains(t, o.Evidence, tc.cause, "%s: the evidence names it", tc.name)
	}
}
