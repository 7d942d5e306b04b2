package results

import (
	"encoding/json"
	"math"
)

// UnmarshalJSON reads a record's metrics block; a null ttft_ms,
// prompt_tps (no first token: an embeddings request, a conformance
// contract's exchange), tpot_ms or gen_tps (a decode span that was not
// observable) becomes NaN, as it was before it was written, so a re-read
// payload summarizes and compares the same way, never as a measured 0.
func (m *Metrics) UnmarshalJSON(b []byte) error {
	type plain Metrics
	var aux struct {
		*plain
		TTFTms    *float64 `json:"ttft_ms"`
		PromptTPS *float64 `json:"prompt_tps"`
		TPOTms    *float64 `json:"tpot_ms"`
		GenTPS    *float64 `json:"gen_tps"`
	}
	aux.plain = (*plain)(m)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	m.TTFTms, m.PromptTPS, m.TPOTms, m.GenTPS = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if aux.TTFTms != nil {
		m.TTFTms = *aux.TTFTms
	}
	if aux.PromptTPS != nil {
		m.PromptTPS = *aux.PromptTPS
	}
	if aux.TPOTms != nil {
		m.TPOTms = *aux.TPOTms
	}
	if aux.GenTPS != nil {
		m.GenTPS = *aux.GenTPS
	}
	return nil
}
