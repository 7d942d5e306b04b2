package resultio_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

// A run journals each record as it finishes and writes its output once at
// the end; a run that was stopped leaves the journal, from which the
// payload is rebuilt.
func ExampleJournal() {
	dir, _ := os.MkdirTemp("", "journal-example")
	defer os.RemoveAll(dir)
	output := filepath.Join(dir, "out.json")

	p := resultio.BuildPayload(resultio.PayloadInput{RunID: "0badc0de", Timestamp: "2025-01-02T03:04:05+00:00",
		Workload: results.WorkloadInfo{Name: "smoke", Repetitions: 1}, CacheMode: "preserve"})
	j, err := resultio.CreateJournal(resultio.JournalPath(output), resultio.JournalHeaderFor(p))
	if err != nil {
		panic(err)
	}
	for _, id := range []string{"greet", "count"} {
		_ = j.Append(results.Record{RunID: p.RunID, CaseID: id, OK: true, Quality: results.Quality{OK: true}})
	}
	_ = j.Close() // the run stops here, before writing out.json

	got, err := resultio.ReadJournalPayload(resultio.JournalPath(output))
	if err != nil {
		panic(err)
	}
	fmt.Println(filepath.Base(resultio.JournalPath(output)), got.RunID, got.Summary.CaseCount, got.Summary.Passed, got.Incomplete != nil)
	// Output: out.json.journal.jsonl 0badc0de 2 false true
}
