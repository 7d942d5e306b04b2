package results_test

import (
	"encoding/json"
	"fmt"

	"github.com/benchserve/benchserve/results"
)

// Decode a payload file's JSON into a Payload and summarize its records:
// a request that failed counts as a failure but stays out of the latency
// statistics, and a gen_tps that was not measured (null) is skipped and
// counted, never averaged in as a number.
func Example() {
	data := []byte(`{"run_id": "5ca1ab1e", "results": [
	  {"case_id": "greet", "repetition": 0, "ok": true, "quality": {"ok": true, "issues": []},
	   "metrics": {"ttft_ms": 40, "e2e_latency_ms": 240, "tpot_ms": 10, "gen_tps": 100, "completion_tokens": 21}},
	  {"case_id": "greet", "repetition": 1, "ok": true, "quality": {"ok": true, "issues": []},
	   "metrics": {"ttft_ms": 60, "e2e_latency_ms": 260, "tpot_ms": null, "gen_tps": null, "completion_tokens": 21,
	               "decode_timing": "single_chunk"}},
	  {"case_id": "explain", "repetition": 0, "ok": false, "error": "stream: HTTP 503",
	   "quality": {"ok": false, "issues": ["request error: stream: HTTP 503"]},
	   "metrics": {"ttft_ms": 0, "e2e_latency_ms": 12, "tpot_ms": null, "gen_tps": null}}]}`)
	var p results.Payload
	if err := json.Unmarshal(data, &p); err != nil {
		fmt.Println("decode:", err)
		return
	}
	s := results.Summarize(p.Results)
	fmt.Printf("%d records of %d cases, passed %v, failure rate %.4f\n", s.CaseCount, s.UniqueCaseCount, s.Passed, s.FailureRate)
	fmt.Printf("ttft_ms mean %.1f over the requests that succeeded (p95 %.1f)\n", s.TTFTms.Mean, s.TTFTms.P95)
	fmt.Printf("gen_tps mean %.1f, %d not measured\n", s.GenTPS.Mean, s.GenTPSSkipped)
	fmt.Printf("greet: %d samples, passed %v; explain: passed %v\n",
		s.CaseSummaries["greet"].SampleCount, s.CaseSummaries["greet"].Passed, s.CaseSummaries["explain"].Passed)
	// Output:
	// 3 records of 2 cases, passed false, failure rate 0.3333
	// ttft_ms mean 50.0 over the requests that succeeded (p95 59.0)
	// gen_tps mean 100.0, 1 not measured
	// greet: 2 samples, passed true; explain: passed false
}
