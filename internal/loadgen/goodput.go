package loadgen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/results"
)

// ParseGoodput parses a per-request goodput SLO written as vLLM bench
// serve's --goodput takes it: one or more "metric:milliseconds" pairs,
// each its own argument or several in one separated by spaces or commas
// ("ttft:500 tpot:50", "e2el:3000"). Metrics are ttft, tpot and e2el; a
// metric not given has no limit. The error names the pair and says what
// is wrong: an unknown metric, a value that is not a positive number, a
// metric given twice, or nothing given.
func ParseGoodput(args ...string) (results.GoodputSLO, error) {
	var slo results.GoodputSLO
	seen := map[string]bool{}
	for _, arg := range args {
		for _, pair := range strings.FieldsFunc(arg, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' }) {
			name, value, ok := strings.Cut(pair, ":")
			if !ok {
				return results.GoodputSLO{}, fmt.Errorf("goodput %q: want metric:milliseconds, e.g. ttft:500", pair)
			}
			name = strings.ToLower(strings.TrimSpace(name))
			ms, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
			if err != nil || !(ms > 0) || math.IsInf(ms, 0) {
				return results.GoodputSLO{}, fmt.Errorf("goodput %q: %q is not a positive number of milliseconds", pair, value)
			}
			if seen[name] {
				return results.GoodputSLO{}, fmt.Errorf("goodput %q: %s given twice", pair, name)
			}
			seen[name] = true
			switch name {
			case "ttft":
				slo.TTFTms = ms
			case "tpot":
				slo.TPOTms = ms
			case "e2el":
				slo.E2ELms = ms
			default:
				return results.GoodputSLO{}, fmt.Errorf("goodput %q: unknown metric %q (want ttft, tpot or e2el)", pair, name)
			}
		}
	}
	if len(seen) == 0 {
		return results.GoodputSLO{}, fmt.Errorf("goodput: no limit given (want metric:milliseconds pairs, e.g. ttft:500 tpot:50)")
	}
	return slo, nil
}
