package runner

import (
	"context"
	"fmt"

	"github.com/benchserve/benchserve/internal/tokens"
)

// CheckTokenizer compares the server's tokenizer endpoint with its usage
// (issue 27 item 1): for the first generated record with usage, it asks
// POST /tokenize to count that case's messages with the chat template
// (tokens.Server.CountMessages) and compares the count with the record's
// usage.prompt_tokens. When they differ it warns (Config.Warn) with both
// numbers; usage wins, the records keep it. It returns the warning, ""
// when they agree, when there is no generated record with usage, or when
// the server has no endpoint (Ollama: HTTP 404) or it failed, which
// skipped says with its reason. Call it after the run: it is a side
// request, bounded by the side-request timeout.
func (s *Session) CheckTokenizer(ctx context.Context) (warning, skipped string) {
	p := s.Payload()
	for _, rec := range p.Results {
		if rec.Requested == nil || !rec.Metrics.UsagePresent || rec.Error != "" {
			continue
		}
		var messages []map[string]any
		for _, j := range s.jobs {
			if j.Case.ID == rec.CaseID {
				messages = j.Case.Messages
				break
			}
		}
		if messages == nil {
			continue
		}
		ctx, cancel := context.WithTimeout(ctx, s.r.sideTimeout())
		defer cancel()
		srv := &tokens.Server{Endpoint: tokens.Endpoint{BaseURL: s.r.prober.BaseURL, APIKey: s.r.prober.APIKey, Model: s.r.model, HTTP: s.r.side}}
		n, err := srv.CountMessages(ctx, messages)
		if err != nil {
			return "", err.Error()
		}
		if n == rec.Metrics.PromptTokens {
			return "", ""
		}
		w := fmt.Sprintf("the server's POST /tokenize counts %d tokens for case %q, its usage.prompt_tokens says %d: the records keep the usage's count", n, rec.CaseID, rec.Metrics.PromptTokens)
		s.r.warn(w)
		return w, ""
	}
	return "", "no generated request with usage"
}
