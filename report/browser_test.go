package report_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/report"
)

// findChromium returns the browser the browser test drives:
// $BENCHSERVE_CHROMIUM, else the first of Debian's chromium and the usual
// names on PATH; "" when there is none.
func findChromium() string {
	if p := os.Getenv("BENCHSERVE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// artifactsDir is $BENCHSERVE_ARTIFACTS (relative paths are taken from the
// module root, as CI means them) or out/ at the module root.
func artifactsDir(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..") // this package is one level below the module root
	require.NoError(t, err, "module root")
	_, err = os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err, "the module root (one level above report/) must hold go.mod")
	dir := os.Getenv("BENCHSERVE_ARTIFACTS")
	if dir == "" {
		dir = "out"
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	require.NoError(t, os.MkdirAll(dir, 0o755), "create the artifacts directory")
	return dir
}

// figureInfo is what the page says about one <figure class="chart">.
type figureInfo struct {
	ID       string  `json:"id"`
	HasSVG   bool    `json:"hasSvg"`
	Children int     `json:"children"`
	Width    float64 `json:"width"`
	Height   float64 `json:"height"`
}

const inspectFigures = `[...document.querySelectorAll("figure.chart")].map(f => {
  const svg = f.querySelector("svg");
  const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
  return {id: f.id, hasSvg: !!svg, children: svg ? svg.querySelectorAll("path, text").length : 0,
          width: box.width, height: box.height};
})`

// TestReportInBrowser opens the report for the fixed runs (workload runs
// with their comparison, a sweep and a capacity search) in headless Chromium and checks it renders: no console errors or exceptions, no
// request other than the file itself, every chart an SVG with content and
// a size, the data block parseable. It saves screenshots to the artifacts
// directory (out/report-screenshot.png: the whole page;
// out/report-screenshot-top.png: the first screen).
func TestReportInBrowser(t *testing.T) {
	bin := findChromium()
	if bin == "" {
		t.Skip("no Chromium found ($BENCHSERVE_CHROMIUM, /usr/bin/chromium, chromium, chromium-browser, google-chrome on PATH): " +
			"install Debian's chromium package (apt-get install -y chromium) to run the browser test")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	require.NoError(t, report.WriteFileWith(page, fixedOptions(), fixedRuns()...), "write the report")

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	allocCtx, allocCancel := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.WindowSize(1280, 1600),
	)
	defer allocCancel()

	var (
		mu       sync.Mutex
		problems []string
		requests []string
	)
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value))
				}
				problems = append(problems, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+ev.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				problems = append(problems, fmt.Sprintf("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			requests = append(requests, ev.Request.URL)
		}
	}
	bctx, bcancel := chromedp.NewContext(allocCtx, chromedp.WithListener(listen))
	defer bcancel()

	err := chromedp.Do(bctx,
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if _, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{}); err != nil {
				return err
			}
			_, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{})
			return err
		}),
		chromedp.Navigate("file://"+page),
		chromedp.WaitReady("#benchserve-data"),
	)
	require.NoError(t, err, "open the report in Chromium")
	proc := chromedp.FromContext(bctx).Browser.Process()

	// The comparison folds cases without a significant row: unfold
	// them, so their charts are laid out and measured too.
	_, err = chromedp.Run(bctx, chromedp.Evaluate[bool](`(document.querySelectorAll("details").forEach(d => d.open = true), true)`))
	require.NoError(t, err, "open the folded cases")
	figs, err := chromedp.Run(bctx, chromedp.Evaluate[[]figureInfo](inspectFigures))
	require.NoError(t, err, "inspect the figures")
	nFigures, err := chromedp.Run(bctx, chromedp.Evaluate[int](`JSON.parse(document.getElementById("benchserve-data").textContent).figures.length`))
	require.NoError(t, err, "the data block must parse as JSON in the browser")
	title, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.title`))
	require.NoError(t, err, "read the title")

	full, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	require.NoError(t, err, "full-page screenshot")
	top, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	require.NoError(t, err, "first-screen screenshot")
	art := artifactsDir(t)
	for name, png := range map[string][]byte{"report-screenshot.png": full, "report-screenshot-top.png": top} {
		out := filepath.Join(art, name)
		require.NoError(t, os.WriteFile(out, png, 0o644), "save %s", out)
		t.Logf("screenshot: %s (%d bytes)", out, len(png))
	}

	assert.Equal(t, "benchserve report", title, "page title")
	assert.Len(t, figs, 15, "the fixed runs give a CDF chart per case of the comparison, 3 distributions and a timeline per workload run, 2 sweep charts and a capacity chart")
	assert.Equal(t, nFigures, len(figs), "every figure listed in the data section is in the page")
	for _, f := range figs {
		assert.True(t, f.HasSVG, "figure %s has an <svg>", f.ID)
		assert.Greater(t, f.Children, 10, "figure %s: its SVG draws paths and text", f.ID)
		assert.Greater(t, f.Width, 200.0, "figure %s is laid out with a width", f.ID)
		assert.Greater(t, f.Height, 80.0, "figure %s is laid out with a height", f.ID)
	}
	assert.Greater(t, len(full), 10_000, "the screenshot is a real image")

	// Stop the browser, then make sure its process is gone.
	bcancel()
	allocCancel()
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, problems, "no console errors, exceptions or error log entries")
	for _, u := range requests {
		assert.True(t, strings.HasPrefix(u, "file://") || strings.HasPrefix(u, "data:"), "the report loads nothing from the network, but requested %s", u)
	}
	require.NotNil(t, proc, "the browser process was started by the allocator")
	assert.ErrorIs(t, proc.Signal(syscall.Signal(0)), os.ErrProcessDone, "the Chromium process (pid %d) is gone after cancel", proc.Pid)
}
