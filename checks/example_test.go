package checks_test

import (
	"encoding/json"
	"fmt"

	"github.com/benchserve/benchserve/checks"
)

func Example() {
	defaults := map[string]any{"finish_reason": "stop", "forbidden_regex": []any{"<think>"}}
	caseChecks := map[string]any{"required_regex": []any{"^def "}, "forbidden_regex": []any{"TODO"}, "min_chars": 80}
	spec, err := checks.ParseSpec(checks.MergeRaw(defaults, caseChecks))
	if err != nil {
		panic(err)
	}
	issues := checks.Evaluate(spec, checks.Response{
		StatusCode:   200,
		FinishReason: "length",
		Content:      "Sure!\ndef f(): pass  # TODO",
	})
	for _, is := range issues {
		fmt.Printf("%s: %s\n", is.Check, is)
	}

	_, err = checks.ParseSpec(map[string]any{"min_char": json.Number("3"), "required_regex": []any{"(?<=a)b"}})
	fmt.Println(err)
	// Output:
	// response: Truncated (finish_reason=length)
	// finish_reason: finish_reason 'length' not in allowed set ['stop']
	// min_chars: content shorter than min_chars=80
	// forbidden_regex: forbidden_regex matched: TODO
	// checks.min_char: unknown check (did you mean "min_chars"?)
	// checks.required_regex[0]: invalid pattern "(?<=a)b": lookbehind is not supported
}
