package results

import (
	"encoding/json"
	"math"
)

// UnmarshalJSON reads a record's metrics block; a null tpot_ms or gen_tps
// (a decode span that was not observable) becomes NaN, as it was before
// it was written, so a re-read payload summarizes the same way.
func (m *Metrics) UnmarshalJSON(b []byte) error {
	type plain Metrics
	var aux struct {
		*plain
		TPOTms *float64 `json:"tpot_ms"`
		GenTPS *float64 `json:"gen_tps"`
	}
	aux.plain = (*plain)(m)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	m.TPOTms, m.GenTPS = math.NaN(), math.NaN()
	if aux.TPOTms != nil {
		m.TPOTms = *aux.TPOTms
	}
	if aux.GenTPS != nil {
		m.GenTPS = *aux.GenTPS
	}
	return nil
}
