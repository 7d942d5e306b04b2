package checks

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMergeRaw(t *testing.T) {
	defaults := map[string]any{
		"finish_reason":   "stop",
		"forbidden_regex": []any{"<think>", "I cannot"},
		"required_regex":  []any{"a"},
		"min_chars":       40.0,
	}
	for _, tc := range []struct {
		name     string
		defaults map[string]any
		caseRaw  map[string]any
		want     map[string]any
	}{
		{"both empty", nil, nil, nil},
		{"empty case objects", map[string]any{}, map[string]any{}, nil},
		{"defaults only", defaults, nil, defaults},
		{"case only", nil, map[string]any{"json": true}, map[string]any{"json": true}},
		{"override and concatenate, defaults first", defaults, map[string]any{
			"finish_reason": []any{"stop", "length"}, "forbidden_regex": []any{"<think>", "TODO"}, "min_chars": 80.0,
		}, map[string]any{
			"finish_reason": []any{"stop", "length"}, "forbidden_regex": []any{"<think>", "I cannot", "<think>", "TODO"},
			"required_regex": []any{"a"}, "min_chars": 80.0,
		}},
		{"[]string lists concatenate too", map[string]any{"required_regex": []string{"a"}}, map[string]any{"required_regex": []string{"b"}},
			map[string]any{"required_regex": []any{"a", "b"}}},
		{"non-list replaces", defaults, map[string]any{"required_regex": nil, "forbidden_regex": "x"}, map[string]any{
			"finish_reason": "stop", "forbidden_regex": "x", "required_regex": nil, "min_chars": 40.0,
		}},
		{"case list over default non-list replaces", map[string]any{"required_regex": "a"}, map[string]any{"required_regex": []any{"b"}},
			map[string]any{"required_regex": []any{"b"}}},
	} {
		assert.Equalf(t, tc.want, MergeRaw(tc.defaults, tc.caseRaw), "%s", tc.name)
	}
	assert.Equal(t, []any{"<think>", "I cannot"}, defaults["forbidden_regex"], "defaults are not modified")
}
