package results

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func cachedRecord(id string, prompt int, built *int, cached *int) Record {
	r := Record{CaseID: id, Quality: Quality{OK: true}}
	r.Metrics.PromptTokens = prompt
	r.Metrics.CachedTokens = cached
	if built != nil {
		r.Requested = &Requested{InputTokens: prompt - 10, PrefixTokens: *built}
	}
	return r
}

func TestPromptCacheSetsBuiltReuseBesideTheServers(t *testing.T) {
	s := Summarize([]Record{
		cachedRecord("a", 1000, ptr(0), ptr(0)),
		cachedRecord("b", 1000, ptr(512), ptr(512)),
		cachedRecord("c", 1000, ptr(512), ptr(256)), // the server kept less
		cachedRecord("d", 1000, ptr(768), ptr(1000)),
	})
	pc := s.PromptCache
	require.NotNil(t, pc, "generated records: the summary verifies the cache")
	assert.Equal(t, PromptCache{Requests: 4, Built: 4, Reported: 4, ExpectedTokens: 1792, ExpectedRate: ptr(0.448),
		CachedTokens: 1768, HitRate: ptr(0.442), BelowExpected: 1}, *pc, "expected 1792/4000, reported 1768/4000, one short")

	none := Summarize([]Record{cachedRecord("a", 1000, ptr(0), nil), cachedRecord("b", 1000, ptr(600), nil)}).PromptCache
	require.NotNil(t, none, "built to share a prefix")
	assert.Nil(t, none.HitRate, "no report: no hit rate, not 0")
	assert.Contains(t, none.HitRateReason, "no response reported usage.prompt_tokens_details.cached_tokens", "and why")
	assert.Equal(t, 0.3, *none.ExpectedRate, "the expected reuse stands alone")
	assert.Zero(t, none.BelowExpected, "a server that did not say is not below expected")

	assert.Nil(t, Summarize([]Record{cachedRecord("a", 10, nil, nil)}).PromptCache, "written cases without reports: nothing to verify")
	reported := Summarize([]Record{cachedRecord("a", 10, nil, ptr(4))}).PromptCache
	require.NotNil(t, reported, "a written case whose server reported")
	assert.Equal(t, 0.4, *reported.HitRate, "its hit rate")
	assert.Nil(t, reported.ExpectedRate, "nothing built")

	b, err := json.Marshal(Summarize([]Record{cachedRecord("a", 1000, ptr(0), ptr(0))}))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"prompt_cache":{"requests":1,"built":1,"reported":1,"expected_cached_tokens":0,"expected_hit_rate":0,"cached_tokens":0,"hit_rate":0,"below_expected":0}`, "the JSON names")
}

// A server reuses whole 16-token blocks: a shortfall under one block is
// full reuse, one block or more is a miss.
func TestPromptCacheBelowExpectedByWholeBlocks(t *testing.T) {
	pc := Summarize([]Record{
		cachedRecord("a", 1000, ptr(520), ptr(512)), // 8 short: the last partial block
		cachedRecord("b", 1000, ptr(527), ptr(512)), // 15 short
		cachedRecord("c", 1000, ptr(528), ptr(512)), // a whole block short
		cachedRecord("d", 1000, ptr(520), ptr(0)),   // nothing reused
	}).PromptCache
	require.NotNil(t, pc)
	assert.Equal(t, 2, pc.BelowExpected, "c and d fell a block or more short; a and b only the partial block")
}
