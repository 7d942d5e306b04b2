package cli

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/results"
)

// loadFlags are the flags that send a workload as load (vLLM bench
// serve's names), benchserve additions to the reference's bench-serve.
type loadFlags struct {
	requestRate    rateList
	burstiness     float64
	numPrompts     int
	duration       durationValue
	maxConcurrency int
	seed           uint64
	mix            *choiceValue
	goodput        listValue
	shard          string
	runID          string
	startAt        string
	maxErrorRate   float64
	getenv         func(string) string
}

func addLoadFlags(fs *flag.FlagSet, l *loadFlags, getenv func(string) string) {
	l.getenv = getenv
	l.requestRate = rateList{math.Inf(1)}
	l.mix = newChoice("cycle", "cycle", "sample")
	fs.Var(&l.requestRate, "request-rate", "Send requests as an open loop at `R` requests per second (Poisson arrivals).\ninf (the default) has no schedule: a closed loop of --max-concurrency streams,\neach sending its next request when its last one ended; without\n--max-concurrency every request at once (at most 256) for --num-prompts, one\nstream for --duration. A workload run: any load flag switches it to load mode.\nA prompt sweep: a comma-separated list is a sweep dimension after --concurrency\n(which caps requests in flight), each point --num-prompts requests. benchserve\naddition")
	fs.Float64Var(&l.burstiness, "burstiness", 1, "Gamma shape `B` of the arrival gaps: 1 = Poisson, < 1 burstier, > 1 steadier")
	fs.IntVar(&l.numPrompts, "num-prompts", 0, "`N` requests in load mode (default: as many as --duration holds; a\n--dataset-name generator's 1000, as vLLM's, 100 sessions, a whole trace;\nelse cases x --repetitions)")
	fs.Var(&l.duration, "duration", "Stop sending requests after `D` (e.g. 2m, 90s, or seconds) in load mode, at\nany rate; requests in flight finish")
	fs.IntVar(&l.maxConcurrency, "max-concurrency", 0, "At most `C` requests in flight in load mode; a request due beyond it waits\nand its lag is recorded (default: at most 256 in flight)")
	fs.Uint64Var(&l.seed, "seed", 0, "`Seed` of the arrival schedule and of --mix sample (and of --dataset-name's draws)")
	fs.Var(l.mix, "mix", "How load mode picks each request's case: `cycle` (in order) or sample (seeded)")
	fs.StringVar(&l.shard, "shard", "", "Send only shard `I/N` of the load (rate/N, a seed of its own) in a run spread over\nN processes; with the same --run-id their outputs join with benchserve merge\n(default: $BENCHSERVE_SHARD, else Kubernetes' $JOB_COMPLETION_INDEX with\n$BENCHSERVE_SHARDS, else a Slurm job array's $SLURM_ARRAY_TASK_ID of\n$SLURM_ARRAY_TASK_COUNT)")
	fs.StringVar(&l.runID, "run-id", getenv("BENCHSERVE_RUN_ID"), "Run `ID` shared by the shards of one run (default: $BENCHSERVE_RUN_ID, else a new one)")
	fs.StringVar(&l.startAt, "start-at", getenv(envStartAt), "Wait until `TIME` (RFC 3339, e.g. 2026-12-01T22:30:00Z) before the first arrival, so the\nshards of one run send together; a time already past starts at once with a warning,\none more than an hour past is refused (default: $BENCHSERVE_START_AT)")
	fs.Float64Var(&l.maxErrorRate, "max-error-rate", 0, "Stop the load run early once its error rate is above `E` (a fraction in [0, 1])\nwith confidence: the exact 95% interval of the failed share of the requests\ncompleted so far lies wholly above it (at least 10 of them); the rest is left\nunsent, the payload's schedule.stop_reason says why, and the exit status is 1\n(default: no limit)")
	fs.Var(&l.goodput, "goodput", "Per-request SLO for goodput, `KEY:MS` pairs: ttft:500 tpot:50 e2el:30000\n(repeatable or space-separated; DistServe's goodput, as vLLM)")
}

// loadNames are the flags that switch a workload run to load mode.
var loadNames = []string{"request-rate", "burstiness", "num-prompts", "duration", "max-concurrency", "mix", "goodput", "shard", "start-at", "max-error-rate"}

// envStartAt is the environment's --start-at ("BENCHSERVE_START_AT").
const envStartAt = "BENCHSERVE_START_AT"

// loadMode reports whether a load flag was given (or a shard or a start
// time set in the environment).
func (f *benchFlags) loadMode() bool {
	if f.dataset.set() {
		return true // vLLM bench serve: a dataset is sent as load (all at once by default)
	}
	for _, n := range loadNames {
		if f.given(n) {
			return true
		}
	}
	if strings.TrimSpace(f.load.startAt) != "" {
		return true
	}
	sh, err := loadgen.ShardFromEnv(f.load.getenv)
	return err != nil || sh.Sharded()
}

// runnerLoad turns the load flags into the engine's Load, adding every
// problem to pr.
func (f *benchFlags) runnerLoad(pr *problems) runner.Load {
	l := runner.Load{
		Rate: f.load.requestRate[0], Burstiness: f.load.burstiness, Requests: f.load.numPrompts,
		Duration: time.Duration(f.load.duration), MaxConcurrency: f.load.maxConcurrency, Seed: f.load.seed,
		Sample: f.load.mix.val == "sample",
	}
	if len(f.load.requestRate) != 1 {
		pr.addUsage("--request-rate: one rate in a workload run (a prompt sweep takes a list), got %s", f.load.requestRate.String())
	}
	unlimited := len(f.load.requestRate) == 1 && math.IsInf(f.load.requestRate[0], 1)
	if f.given("burstiness") && f.load.burstiness == 0 {
		pr.addUsage("--burstiness 0: want a gamma shape > 0 (1 = Poisson, < 1 burstier, > 1 steadier)")
	} else if f.given("burstiness") && unlimited {
		pr.addUsage("--burstiness %g has no effect without a --request-rate: an unlimited rate has no arrival schedule to shape", f.load.burstiness)
	}
	// 0 is the flags' "not given"; given explicitly it is a mistake, not a
	// request for the default.
	if f.given("num-prompts") && f.load.numPrompts == 0 {
		pr.addUsage("--num-prompts 0: want at least 1 request (leave it out for cases x --repetitions, or give --duration)")
	}
	if f.given("max-concurrency") && f.load.maxConcurrency == 0 {
		pr.addUsage("--max-concurrency 0: want at least 1 request in flight (leave it out for the default bound, 256)")
	}
	if f.given("seed") && unlimited && f.load.mix.val != "sample" && !f.dataset.set() {
		pr.addUsage("--seed %d has no effect without a --request-rate or --mix sample: nothing is drawn", f.load.seed)
	}
	if f.given("max-error-rate") {
		v := f.load.maxErrorRate
		l.MaxErrorRate = &v // out of [0, 1]: Check says so
	}
	if f.load.shard != "" {
		sh, err := loadgen.ParseShard(f.load.shard)
		if err != nil {
			pr.addUsage("--shard: %v", err)
		}
		l.Shard = sh
	} else if sh, err := loadgen.ShardFromEnv(f.load.getenv); err != nil {
		pr.addUsage("%v", err)
	} else {
		l.Shard = sh
	}
	if s := strings.TrimSpace(f.load.startAt); s != "" {
		at, err := time.Parse(time.RFC3339, s)
		if err != nil {
			pr.addUsage("--start-at %q: want an RFC 3339 time with its zone, e.g. 2026-12-01T22:30:00Z", s)
		}
		l.StartAt = at
	}
	if l.Shard.Sharded() && f.load.runID == "" {
		pr.addUsage("--shard %s: give every shard the same --run-id (or $BENCHSERVE_RUN_ID), so their outputs merge", l.Shard)
	}
	if err := l.Check(); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			pr.addUsage("load: %s", line)
		}
	}
	if len(f.load.goodput) > 0 {
		slo, err := loadgen.ParseGoodput(f.load.goodput...)
		if err != nil {
			pr.addUsage("--goodput: %v", err)
		}
		l.Goodput = &slo
	}
	return l
}

// scheduleLine summarizes a load run's schedule for stderr, saying when
// the client could not keep up:
//
//	Load: target 8 req/s (burstiness 1, seed 0), achieved 7.93 req/s over 9.87 s of sending; throughput 7.90 req/s over 9.95 s (first send to last end); lag p50 0.1 ms p99 1.2 ms; 0 late, 0 dropped, 0 unsent, 0 connection retries; goodput 7.50 req/s
//
// A closed loop has no arrival rate: its line gives the throughput only.
func scheduleLine(sc *results.Schedule) string {
	if sc == nil {
		return ""
	}
	achieved := "achieved rate null (" + sc.AchievedRateReason + ")"
	if sc.AchievedRate != nil {
		achieved = fmt.Sprintf("achieved %.2f req/s over %.3g s of sending", *sc.AchievedRate, sc.SendingWindowS)
		if sc.RateWindowS != nil {
			achieved = fmt.Sprintf("achieved %.2f req/s over the %.3g s every shard was sending (of %.3g s of sending)", *sc.AchievedRate, *sc.RateWindowS, sc.SendingWindowS)
		}
	}
	var b strings.Builder
	if sc.Mode == "trace" {
		fmt.Fprintf(&b, "Load: replayed at the trace's timestamps (at most %d in flight); %s", sc.InFlightCap, achieved)
	} else if sc.TargetRate == nil {
		streams := fmt.Sprintf("%d streams", sc.InFlightCap)
		if sc.InFlightCap == 1 {
			streams = "1 stream"
		}
		fmt.Fprintf(&b, "Load: no schedule (--request-rate inf, the default): a closed loop of %s, each sending its next request when its last one ended", streams)
		if sc.Shard != "" {
			fmt.Fprintf(&b, ", in shard %s", sc.Shard)
		}
	} else {
		target := strconv.FormatFloat(*sc.TargetRate, 'g', 4, 64) + " req/s"
		if sc.Shard != "" && sc.RunRate != nil {
			target += fmt.Sprintf(" (shard %s of %g req/s)", sc.Shard, *sc.RunRate)
		}
		fmt.Fprintf(&b, "Load: target %s (burstiness %g, seed %d), %s", target, sc.Burstiness, sc.Seed, achieved)
		if sc.MaxConcurrency == 0 && sc.InFlightCap > 0 {
			fmt.Fprintf(&b, "; at most %d in flight (the default bound; --max-concurrency sets it)", sc.InFlightCap)
		}
	}
	// What the server served, in any loop: completions over the wall
	// span (vLLM's request_throughput).
	if sc.RequestThroughput != nil {
		fmt.Fprintf(&b, "; throughput %.2f req/s over %.3g s (first send to last end)", *sc.RequestThroughput, sc.WallSpanS)
	} else if sc.RequestThroughputReason != "" {
		fmt.Fprintf(&b, "; throughput null (%s)", sc.RequestThroughputReason)
	}
	if sc.LagMS != nil {
		fmt.Fprintf(&b, "; lag p50 %.1f ms p99 %.1f ms", sc.LagMS.P50, sc.LagMS.P99)
	}
	unsent := strconv.Itoa(sc.Unsent)
	if sc.UnsentEstimated {
		unsent = "about " + unsent
	}
	why := ""
	if sc.Unsent > 0 && sc.StopReason == "" && sc.DurationS > 0 {
		// The duration's design, not a failure: said, not an error.
		why = fmt.Sprintf(" (--duration %gs ended the run first)", sc.DurationS)
	}
	fmt.Fprintf(&b, "; %d late, %d dropped, %s unsent%s, %d connection retries", sc.Late, sc.Dropped, unsent, why, sc.ConnectionRetries)
	if sc.StartAt != "" && sc.StartLateMS != nil {
		fmt.Fprintf(&b, "; started %.1f ms after --start-at %s", *sc.StartLateMS, sc.StartAt)
	}
	if sc.Goodput != nil {
		fmt.Fprintf(&b, "; goodput %.2f req/s", *sc.Goodput)
	} else if sc.GoodputReason != "" {
		fmt.Fprintf(&b, "; goodput null (%s)", sc.GoodputReason)
	}
	b.WriteString("\n")
	b.WriteString(fromScheduleLine(sc))
	if sc.StopReason != "" {
		fmt.Fprintf(&b, "Error: the run was stopped early: %s; %s requests were not sent\n", sc.StopReason, unsent)
	}
	if sc.ClientValid != nil {
		// The run's own verdict (runner.ClientLimits): an invalid run's
		// line says why, and the exit status is ExitFailed.
		if *sc.ClientValid {
			fmt.Fprintf(&b, "Client: %s\n", sc.ClientReason)
		} else {
			fmt.Fprintf(&b, "Error: the run is invalid: %s; the figures measure the client, not the server\n", sc.ClientReason)
		}
	} else if sc.TargetRate != nil && sc.LagMS != nil && sc.LagMS.P99 > behindMS(*sc.TargetRate) {
		fmt.Fprintf(&b, "Warning: the client fell behind the schedule (lag p99 %.1f ms, more than %.1f ms: a tenth of the mean gap between arrivals, or 10 ms); the client or --max-concurrency held requests back, so the server saw less than the target rate\n", sc.LagMS.P99, behindMS(*sc.TargetRate))
	}
	return b.String()
}

// lagMattersMS is the lag p99, in ms, from which the CLI shows the
// latencies from the schedule beside the send-time ones: a request more
// than 1 ms late (Schedule.Late) waited longer than its send-time figures
// say.
const lagMattersMS = 1.0

// fromScheduleLine is the line showing the latencies from the schedule
// (coordinated omission) when the lag matters (lag p99 above
// lagMattersMS), "" otherwise:
//
//	Latency from the schedule (lag p99 412.3 ms): TTFT p50 230.1 ms p99 431.0 ms, E2EL p50 239.3 ms p99 440.2 ms
func fromScheduleLine(sc *results.Schedule) string {
	if sc.LagMS == nil || sc.LagMS.P99 <= lagMattersMS || sc.E2ELFromScheduleMS == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Latency from the schedule (lag p99 %.1f ms): ", sc.LagMS.P99)
	if t := sc.TTFTFromScheduleMS; t != nil {
		fmt.Fprintf(&b, "TTFT p50 %.1f ms p99 %.1f ms, ", t.P50, t.P99)
	}
	e := sc.E2ELFromScheduleMS
	fmt.Fprintf(&b, "E2EL p50 %.1f ms p99 %.1f ms\n", e.P50, e.P99)
	return b.String()
}

// behindMS is the lag beyond which a client is said to have fallen behind
// a schedule at rate: a tenth of the mean gap between arrivals, at least
// 10 ms (below that, scheduling noise of a busy machine, not a client
// that cannot keep up).
func behindMS(rate float64) float64 { return max(10, 100/rate) }

// rateList is a request rate flag: positive numbers or "inf",
// comma-separated.
type rateList []float64

// minRequestRate is the lowest --request-rate: one request a day.
const minRequestRate = 1.0 / 86400

func (r *rateList) String() string {
	parts := make([]string, len(*r))
	for i, v := range *r {
		if math.IsInf(v, 1) {
			parts[i] = "inf"
		} else {
			parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return strings.Join(parts, ",")
}

func (r *rateList) Set(s string) error {
	var out rateList
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || math.IsNaN(v) || v <= 0 {
			return fmt.Errorf("want positive numbers of requests per second or inf, got %q", part)
		}
		if v < minRequestRate {
			// 1e-300 req/s waited for ever with no word: its first
			// arrival is centuries away.
			return fmt.Errorf("%q is below one request a day (%.3g req/s): the run would wait for days", part, minRequestRate)
		}
		out = append(out, v)
	}
	*r = out
	return nil
}

// durationValue is a duration flag: a Go duration ("2m", "90s") or a
// number of seconds.
type durationValue time.Duration

func (d *durationValue) String() string { return time.Duration(*d).String() }

func (d *durationValue) Set(s string) error {
	if v, err := time.ParseDuration(s); err == nil && v > 0 {
		*d = durationValue(v)
		return nil
	}
	secs, err := strconv.ParseFloat(s, 64)
	v := time.Duration(secs * float64(time.Second))
	// Under a nanosecond v is 0, which means no duration at all.
	if err != nil || !(secs > 0) || secs > float64(math.MaxInt64)/float64(time.Second) || v <= 0 {
		return fmt.Errorf("want a positive duration such as 2m or 90s, or seconds, got %q", s)
	}
	*d = durationValue(v)
	return nil
}
