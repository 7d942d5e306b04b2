package workloads

import (
	"math"
	"path/filepath"

	"github.com/benchserve/benchserve/internal/paths"
	"github.com/benchserve/benchserve/results"
)

// generatorKeys are the "generator" object's own keys; every other key is
// a parameter of the named generator under vLLM's flag name with
// underscores ("random_input_len"), checked by the engine when it builds
// the generator (an unknown one is an error naming it).
var generatorKeys = []string{"name", "dataset_path", "num_prompts", "seed", "ignore_eos", "min_tokens"}

// parseGenerator reads the workload file's "generator" object: a
// generated request set beside or instead of "cases" (issue 27), e.g.
//
//	"generator": {"name": "random", "num_prompts": 100, "seed": 1,
//	              "random_input_len": 512, "random_output_len": 64,
//	              "ignore_eos": true}
//
// dataset_path is resolved against the workload file's folder (a leading
// ~ expanded). It returns nil when v is absent.
func (p *parser) parseGenerator(v any) *results.Generator {
	if v == nil {
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		p.add(at{}, "generator", "want an object like {\"name\": \"random\", \"num_prompts\": 100}, got %s", describe(v))
		return nil
	}
	g := &results.Generator{Params: map[string]any{}}
	name, ok := obj["name"].(string)
	if !ok || name == "" {
		p.add(at{}, "generator.name", "want a generator name such as \"random\", \"prefix_repetition\" or \"sharegpt\", got %s", describe(obj["name"]))
	}
	g.Name = name
	if v, present := obj["dataset_path"]; present {
		s, ok := v.(string)
		if !ok || s == "" {
			p.add(at{}, "generator.dataset_path", "want a file path, got %s", describe(v))
		} else {
			full := paths.ExpandHome(s)
			if !filepath.IsAbs(full) && p.file != "" {
				full = filepath.Join(filepath.Dir(p.file), full)
			}
			g.Path = full
		}
	}
	if v, present := obj["num_prompts"]; present {
		if n, ok := asPositiveInt(v); ok {
			g.NumPrompts = n
		} else {
			p.add(at{}, "generator.num_prompts", "want a positive integer, got %s", describe(v))
		}
	}
	if v, present := obj["seed"]; present {
		if f, ok := asNumber(v); ok && f >= 0 && f == math.Trunc(f) && f < 1<<53 {
			g.Seed = uint64(f)
		} else {
			p.add(at{}, "generator.seed", "want an integer >= 0, got %s", describe(v))
		}
	}
	for _, key := range []string{"ignore_eos", "min_tokens"} {
		v, present := obj[key]
		if !present {
			continue
		}
		b, ok := v.(bool)
		if !ok {
			p.add(at{}, "generator."+key, "want true or false, got %s", describe(v))
		}
		if key == "ignore_eos" {
			g.IgnoreEOS = b
		} else {
			g.MinTokens = b
		}
	}
	for k, v := range obj {
		if !contains(generatorKeys, k) {
			g.Params[k] = v
		}
	}
	return g
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
