package cli

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/py"
)

// saveResultFlags are vLLM bench serve's result-file flags, so its
// command lines work here: --save-result writes the results as JSON to
// --result-dir (default the working directory) under --result-filename,
// or vLLM's own name for the run:
// "{label}-{request_rate}qps[-concurrency{C}]-{model}-{YYYYmmdd-HHMMSS}.json"
// (vllm/benchmarks/serve.py), the label "benchserve", the rate as Python
// prints it ("inf", "10.0"), the model's last path segment (left out
// without --model: the server's is not known before the run). It is --output
// under another name: the same checks and atomic write.
type saveResultFlags struct {
	save          bool
	dir, filename string
}

func addSaveResultFlags(fs *flag.FlagSet, s *saveResultFlags) {
	fs.BoolVar(&s.save, "save-result", false, "Write the results as JSON to --result-dir/--result-filename (vLLM's flags; --output\nunder another name; default name as vLLM's: benchserve-{rate}qps-{model}-{time}.json)")
	fs.StringVar(&s.dir, "result-dir", "", "`Directory` --save-result writes to (default: the working directory)")
	fs.StringVar(&s.filename, "result-filename", "", "`File` name --save-result writes (default: vLLM's name for the run)")
}

// resolveSaveResult turns --save-result into f.output, at now; a
// --result-dir or --result-filename without --save-result, or with
// --output, is a usage error (a flag that would do nothing).
func (f *benchFlags) resolveSaveResult(pr *problems, now time.Time) {
	s := f.saveResult
	switch {
	case !s.save && (s.dir != "" || s.filename != ""):
		pr.addUsage("--result-dir and --result-filename name the file --save-result writes: add --save-result, or give --output")
		return
	case !s.save:
		return
	case f.output != "":
		pr.addUsage("--save-result and --output both name the results file: give one")
		return
	}
	name := s.filename
	if name == "" {
		name = vllmResultName(f.load.requestRate, f.load.maxConcurrency, f.model, now)
	}
	if s.dir != "" {
		if err := os.MkdirAll(s.dir, 0o755); err != nil { // as vLLM makes it
			pr.addInput("--result-dir: %v", err)
			return
		}
	}
	f.output = filepath.Join(s.dir, name)
	if f.format.val == "auto" {
		f.format.val = "json"
	}
}

// vllmResultName is vLLM bench serve's result file name for a run at rate
// (its first, for a sweep's list) with at most concurrency requests in
// flight (0: unbounded) on model, at now.
func vllmResultName(rates rateList, concurrency int, model string, now time.Time) string {
	rate := math.Inf(1)
	if len(rates) > 0 {
		rate = rates[0]
	}
	conc := ""
	if concurrency > 0 {
		conc = fmt.Sprintf("-concurrency%d", concurrency)
	}
	base := model[strings.LastIndex(model, "/")+1:]
	if base != "" {
		base += "-" // no --model: the server's is not known yet, and the name goes without
	}
	return fmt.Sprintf("benchserve-%sqps%s-%s%s.json", py.FloatRepr(rate), conc, base, now.Format("20060102-150405"))
}
