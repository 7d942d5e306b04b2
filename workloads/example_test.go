package workloads_test

import (
	"fmt"

	"github.com/benchserve/benchserve/workloads"
)

func Example() {
	w, err := workloads.Parse([]byte(`{
		"name": "smoke",
		"defaults": {"max_tokens": 128, "checks": {"finish_reason": "stop", "forbidden_regex": ["<think>"]}},
		"cases": [
			{"id": "greet", "tags": "chat", "messages": [{"role": "user", "content": "Say hi."}],
			 "checks": {"min_chars": 2}},
			{"messages": [{"role": "user", "content": "Write JSON."}], "checks": {"json": true}}
		]
	}`), "workloads/examples/smoke.json")
	if err != nil {
		panic(err)
	}
	for _, c := range w.Cases {
		fmt.Println(c.ID, c.EffectiveMaxTokens(), c.Tags, c.Checks.Keys())
	}

	_, err = workloads.Parse([]byte(`{"defaults": {"max_token": 5},
		"cases": [{"id": "greet", "messages": [{"role": "user", "content": "hi"}], "checks": {"min_chars": "x"}}]}`),
		"workloads/examples/chat.json")
	fmt.Println(err)
	// Output:
	// greet 128 [chat] [finish_reason forbidden_regex min_chars]
	// case_2 128 [] [finish_reason forbidden_regex json]
	// workload: load workloads/examples/chat.json: 2 problems:
	// workloads/examples/chat.json: defaults.max_token: unknown key (did you mean "max_tokens"?)
	// workloads/examples/chat.json: case "greet": checks.min_chars: want an integer >= 0, got "x"
}
