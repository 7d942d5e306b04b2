package report_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/report"
	"github.com/benchserve/benchserve/results"
)

func Example() {
	// A payload as benchtest.RunWorkload or the CLI returns it.
	rec := results.Record{RunID: "ab12cd34", CaseID: "greet", Workload: "smoke", ModelID: "m",
		StartedAt: "2025-01-02T03:04:05.000000+00:00",
		Metrics:   results.Metrics{TTFTms: 12, TPOTms: 3, E2ELms: 200, GenTPS: 300},
		Quality:   results.Quality{OK: true, Issues: []string{}}, OK: true}
	p := resultio.BuildPayload(resultio.PayloadInput{RunID: "ab12cd34", Workload: results.WorkloadInfo{Name: "smoke"},
		Records: []results.Record{rec}})

	var page bytes.Buffer
	if err := report.Write(&page, report.FromPayload(p, "")); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Count(page.String(), `<figure class="chart"`), "charts")
	fmt.Println(strings.Contains(page.String(), `id="benchserve-data"`))
	// Output:
	// 4 charts
	// true
}
