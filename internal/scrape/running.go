package scrape

// RunningGauges are the /metrics gauges counting the requests a server is
// generating for, one per dialect, in the order ParseRunning tries them:
// vllm-mlx (and the benchserve fixture), vLLM, SGLang, llama.cpp.
var RunningGauges = []string{
	"vllm_mlx_scheduler_running_requests",
	"vllm:num_requests_running",
	"sglang:num_running_reqs",
	"llamacpp:requests_processing",
}

// ParseRunning reads the running-requests gauge from a /metrics body (see
// RunningGauges): its value summed over label sets and its name; ok is
// false when the body has none of them. Errors are Parse's.
func ParseRunning(body []byte, contentType string) (value float64, name string, ok bool, err error) {
	fams, err := decode(body, contentType)
	if err != nil {
		return 0, "", false, err
	}
	for _, n := range RunningGauges {
		if v := sum(fams, n); v != nil {
			return *v, n, true, nil
		}
	}
	return 0, "", false, nil
}
