package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/workloads"
)

const conformanceKey = "cli-conformance-key"

// conformanceFixture is a fixture that requires a key (so that
// errors.wrong_api_key applies) and answers without delays.
func conformanceFixture(t *testing.T, faults ...fixtures.Fault) *fixtures.Server {
	return fixtures.Start(t, fixtures.Options{APIKey: conformanceKey, Faults: faults, Timing: &fixtures.Timing{}})
}

func TestConformancePassesOnTheFixture(t *testing.T) {
	srv := conformanceFixture(t)
	out := filepath.Join(t.TempDir(), "conformance.json")
	res := invoke(t, "conformance", "--url", srv.URL, "--api-key", conformanceKey, "--output", out)
	require.Equal(t, ExitOK, res.code, "every MUST holds on the fixture:\n%s", res.stdout)
	w, err := workloads.Conformance()
	require.NoError(t, err)
	assert.Contains(t, res.stdout, "benchserve conformance: 51 contracts: 51 pass — every MUST holds")
	p := readPayload(t, out)
	require.Len(t, p.Results, len(w.Cases), "one record per contract")
	for _, rec := range p.Results {
		require.NotNil(t, rec.Contract, "record %s carries its contract", rec.CaseID)
		assert.Equal(t, rec.CaseID, rec.Contract.Name)
		assert.Equal(t, "pass", rec.Contract.Verdict, "%s: %s", rec.CaseID, rec.Contract.Evidence)
		assert.NotEmpty(t, rec.Contract.Level)
		assert.NotEmpty(t, rec.Contract.Evidence)
		assert.Contains(t, res.stdout, "PASS  "+rec.Contract.Level, "one line per contract")
	}
	assert.NotContains(t, res.stdout+res.stderr, conformanceKey, "the key never appears in the output")
}

// TestConformanceFailsOnEachMustFault: a server breaking any one MUST
// rule of framing, usage or errors fails the run, and the line names the
// rule.
func TestConformanceFailsOnEachMustFault(t *testing.T) {
	w, err := workloads.Conformance()
	require.NoError(t, err)
	levels := map[string]contract.Level{}
	rules := map[string]string{}
	for _, c := range w.Cases {
		levels[c.ID] = contract.Level(c.Protocol.Level)
		rules[c.ID], _ = c.Protocol.Rule()
	}
	for _, f := range fixtures.Faults() {
		name := f.Contract()
		group, _, _ := strings.Cut(name, ".")
		if levels[name] != contract.Must || (group != "stream" && group != "usage" && group != "errors") {
			continue
		}
		t.Run(string(f), func(t *testing.T) {
			srv := conformanceFixture(t, f)
			res := invoke(t, "conformance", "--url", srv.URL, "--api-key", conformanceKey, "--case-tag", group)
			assert.Equal(t, ExitFailed, res.code, "fault %s breaks the MUST %s", f, name)
			line := contractBlock(res.stdout, name)
			assert.True(t, strings.HasPrefix(strings.TrimSpace(line), "FAIL  MUST"), "the line of %s says FAIL: %q", name, line)
			assert.Contains(t, line, "breaks: "+rules[name], "the line names the rule")
			assert.Equal(t, 1, strings.Count(res.stdout, "FAIL  MUST"), "only %s fails:\n%s", name, res.stdout)
		})
	}
}

// contractBlock is the line of contract name in conformance's output with
// the lines its evidence is folded onto joined back to it.
func contractBlock(stdout, name string) string {
	var block []string
	for _, l := range strings.Split(stdout, "\n") {
		switch {
		case strings.Contains(l, " "+name+" "):
			block = []string{l}
		case len(block) > 0 && strings.HasPrefix(l, evidenceIndent):
			block = append(block, strings.TrimPrefix(l, evidenceIndent))
		case len(block) > 0:
			return strings.Join(block, " ")
		}
	}
	return strings.Join(block, " ")
}

func TestConformanceShouldWarnsUnlessStrict(t *testing.T) {
	srv := conformanceFixture(t, fixtures.Fault("ignore-n"))
	res := invoke(t, "conformance", "--url", srv.URL, "--api-key", conformanceKey, "--case-tag", "choices")
	assert.Equal(t, ExitOK, res.code, "a SHOULD that fails is a warning")
	assert.Contains(t, res.stdout, "WARN  SHOULD  choices.n")
	res = invoke(t, "conformance", "--url", srv.URL, "--api-key", conformanceKey, "--case-tag", "choices", "--strict")
	assert.Equal(t, ExitFailed, res.code, "with --strict it fails the run")
	assert.Contains(t, res.stdout, "FAIL  SHOULD  choices.n")
}

func TestConformanceWithoutAKeySkipsTheKeyContract(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Timing: &fixtures.Timing{}})
	res := invoke(t, "conformance", "--url", srv.URL, "--case-tag", "errors")
	assert.Equal(t, ExitOK, res.code)
	assert.Contains(t, res.stdout, "SKIP  MUST    errors.wrong_api_key")
	assert.Contains(t, res.stdout, "it requires none")
}

func TestConformanceUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeWorkloadFile(t, dir, "suite.json", `{"cases": [{"id": "mine", "messages": [{"role": "user", "content": "hi"}], "protocol": {"level": "MUST", "check": "stream_framin"}}]}`)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no url", []string{"conformance"}, "--url is required"},
		{"bad workload", []string{"conformance", "--url", "http://127.0.0.1:1", "--workload", bad}, `suite.json: case "mine": protocol.check: unknown check kind "stream_framin" (did you mean "stream_framing"?)`},
		{"unknown tag", []string{"conformance", "--url", "http://127.0.0.1:1", "--case-tag", "nope"}, "--case-tag nope: no contract"},
		{"stray argument", []string{"conformance", "--url", "http://127.0.0.1:1", "extra"}, "unexpected arguments"},
		{"unreachable", []string{"conformance", "--url", "http://127.0.0.1:1"}, "benchserve conformance: cannot list the models at http://127.0.0.1:1: connection refused; is the server running, and is --url its address?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := invoke(t, tt.args...)
			assert.Equal(t, ExitUsage, res.code)
			assert.Contains(t, res.stderr, tt.want)
		})
	}
}

func TestFixtureRefusesAnUnknownFault(t *testing.T) {
	res := invoke(t, "fixture", "--fault", "no-such-fault")
	assert.Equal(t, ExitUsage, res.code, "an unknown fault is a usage error")
	assert.Contains(t, res.stderr, `benchserve fixture: --fault "no-such-fault": no such fault`+"\n", "names the fault given")
	assert.Contains(t, res.stderr, "Run 'benchserve fixture --help' for the", "says how to list the faults")
	for _, l := range strings.Split(res.stderr, "\n") {
		assert.LessOrEqual(t, len(l), maxHelpCols, "no line is wider than %d columns: %q", maxHelpCols, l)
	}
	res = invoke(t, "fixture", "--fault", "no-dne")
	assert.Equal(t, ExitUsage, res.code, "a misspelt fault is a usage error")
	assert.Contains(t, res.stderr, "did you mean --fault no-done?", "suggests the closest fault")
}

func TestConformanceMatrix(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	srv := conformanceFixture(t)
	require.Equal(t, ExitOK, invoke(t, "conformance", "--url", srv.URL, "--api-key", conformanceKey, "--case-tag", "choices,stream", "--output", good).code)
	faulty := conformanceFixture(t, fixtures.Fault("ignore-n"), fixtures.Fault("no-done"))
	require.Equal(t, ExitFailed, invoke(t, "conformance", "--url", faulty.URL, "--api-key", conformanceKey, "--case-tag", "choices,stream", "--output", bad).code)
	res := invoke(t, "conformance", "matrix", "fixture="+good, "faulty server="+bad)
	require.Equal(t, ExitOK, res.code)
	assert.Contains(t, res.stdout, "| contract | level | rule | fixture | faulty server |")
	assert.Contains(t, res.stdout, "| `stream.framing` | MUST | [a stream is data: events of JSON chat.completion.chunk objects ending with data: [DONE]](https://platform.openai.com/docs/api-reference/chat/streaming) | pass | fail |")
	assert.Contains(t, res.stdout, "| pass | warn |", "choices.n is a SHOULD: a warning")
	assert.Contains(t, res.stdout, "| `stream.same_id` | MUST |")

	for _, args := range [][]string{{"conformance", "matrix"}, {"conformance", "matrix", good}, {"conformance", "matrix", "x=" + filepath.Join(dir, "missing.json")}} {
		assert.Equal(t, ExitUsage, invoke(t, args...).code, "%v is a usage error", args)
	}
	res = invoke(t, "conformance", "matrix", "a="+good, "a="+bad)
	assert.Equal(t, ExitUsage, res.code, "two columns of one label")
	assert.Contains(t, res.stderr, `label "a" is given twice`)
}
