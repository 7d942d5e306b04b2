package checks

// MergeRaw merges a case's checks object over the workload defaults'
// (reference: _merge_case_checks). Case keys override default keys, except
// required_regex and forbidden_regex: when both sides hold lists, the
// result is the defaults' patterns followed by the case's. Neither input is
// modified; the result is a new map (list values are new slices only where
// concatenated). It returns nil when the merged object is empty.
//
// Lists are recognised as []any (what encoding/json produces) or []string.
func MergeRaw(defaults, caseChecks map[string]any) map[string]any {
	merged := make(map[string]any, len(defaults)+len(caseChecks))
	for k, v := range defaults {
		merged[k] = v
	}
	for k, v := range caseChecks {
		if k == "required_regex" || k == "forbidden_regex" {
			caseList, okCase := asList(v)
			defList, okDef := asList(merged[k])
			if okCase && okDef {
				joined := make([]any, 0, len(defList)+len(caseList))
				merged[k] = append(append(joined, defList...), caseList...)
				continue
			}
		}
		merged[k] = v
	}
	if len(merged) == 0 {
		return nil
	}
	return merged
}

func asList(v any) ([]any, bool) {
	switch l := v.(type) {
	case []any:
		return l, true
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out, true
	}
	return nil, false
}
