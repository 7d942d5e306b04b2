package sweep

import "github.com/benchserve/benchserve/results"

// Reporter hears a sweep as it runs (Config.Report); a nil func is not
// called. Calls come from the goroutine running the sweep, in order.
type Reporter struct {
	// Started is called once, before the first point is sent.
	Started func(Started)
	// Finished is called after each point with its row and what its
	// requests did.
	Finished func(pt Point, o Outcome)
}

// Started is what a sweep knows when it starts: what the reference prints
// before its first run.
type Started struct {
	// URL is the server root, with any password redacted.
	URL string
	// Hardware and Runtime are the client machine's and the detected
	// server's; Model the model requested.
	Hardware results.Hardware
	Runtime  results.Runtime
	Model    string
	// Notes are the reference's lines about the input, in order: a
	// skipped prompt set's warning, the system prompt prepended.
	Notes []string
	// Points is the sweep's measured runs; Warmup the warmup rounds per
	// configuration.
	Points, Warmup int
}
