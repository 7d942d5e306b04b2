package loadgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// seedStream is the PCG stream constant paired with the caller's seed, so a
// seed alone names the whole sequence.
const seedStream = 0x9e3779b97f4a7c15

// NewRand returns the generator behind Schedule: math/rand/v2's PCG seeded
// with (seed, 0x9e3779b97f4a7c15). The same seed gives the same sequence on
// every platform and Go release that keeps PCG's definition.
func NewRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seedStream)) }

// Schedule returns the send offsets, from the start of the run, of n
// open-loop requests arriving at rate requests per second (vLLM bench
// serve's get_request): the first request is sent at 0 and each later one
// after a random gap. With burstiness 1 the gaps are exponential (a
// Poisson process); otherwise they are gamma distributed with shape
// burstiness and scale 1/(rate·burstiness), so the mean rate stays rate
// while burstiness < 1 clusters arrivals and > 1 evens them out (vLLM's
// --burstiness). burstiness 0 means 1. rate +Inf (or math.MaxFloat64) sends
// everything at 0; an offset beyond time.Duration's range (about 292
// years) is math.MaxInt64. The schedule depends only on its arguments: the same
// seed always yields the same offsets (see NewRand).
//
// Schedule panics, like math/rand's Intn, when n < 0 or the arrival
// parameters are invalid (see CheckArrivals); RunOpen checks them first and
// returns the error instead.
func Schedule(rate, burstiness float64, n int, seed uint64) []time.Duration {
	if n < 0 {
		panic(fmt.Sprintf("load: schedule: request count %d: want >= 0", n))
	}
	if err := CheckArrivals(rate, burstiness); err != nil {
		panic(err.Error())
	}
	return schedule(newArrivals(rate, burstiness, seed, false), n)
}

func schedule(a *arrivals, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = a.next()
	}
	return out
}

// Schedule returns the first n send offsets RunOpen uses for cfg: those
// of the package-level Schedule, except that with cfg.FirstGap the first
// arrival too comes after a gap drawn like every other one. It panics
// like Schedule on invalid arguments.
func (cfg Open) Schedule(n int) []time.Duration {
	if n < 0 {
		panic(fmt.Sprintf("load: schedule: request count %d: want >= 0", n))
	}
	if err := CheckArrivals(cfg.Rate, cfg.Burstiness); err != nil {
		panic(err.Error())
	}
	return schedule(newArrivals(cfg.Rate, cfg.Burstiness, cfg.Seed, cfg.FirstGap), n)
}

// arrivals yields Schedule's offsets one by one (the first is 0, or
// after a first gap when firstGap is set).
type arrivals struct {
	r                *rand.Rand
	rate, burstiness float64
	inf, started     bool
	at               float64 // seconds
}

func newArrivals(rate, burstiness float64, seed uint64, firstGap bool) *arrivals {
	if burstiness == 0 {
		burstiness = 1
	}
	return &arrivals{r: NewRand(seed), rate: rate, burstiness: burstiness,
		inf: math.IsInf(rate, 1) || rate == math.MaxFloat64, started: firstGap}
}

func (a *arrivals) next() time.Duration {
	if a.started && !a.inf {
		a.at += Gap(a.r, a.rate, a.burstiness)
	}
	a.started = true
	// An offset beyond time.Duration's range (a rate of 1e-12 req/s)
	// saturates: converting it would wrap to a negative offset.
	if ns := a.at * float64(time.Second); ns < float64(math.MaxInt64) {
		return time.Duration(ns)
	}
	return time.Duration(math.MaxInt64)
}

// CheckArrivals reports whether rate (requests per second) and burstiness
// can drive Schedule: rate must be > 0 (+Inf allowed), burstiness finite
// and >= 0 (0 means 1).
func CheckArrivals(rate, burstiness float64) error {
	if !(rate > 0) {
		return fmt.Errorf("load: arrivals: rate %v: want > 0 requests per second", rate)
	}
	if !(burstiness >= 0) || math.IsInf(burstiness, 0) {
		return fmt.Errorf("load: arrivals: burstiness %v: want a finite value > 0", burstiness)
	}
	return nil
}

// Gap draws one inter-arrival gap in seconds for the given rate (requests
// per second, > 0) and burstiness (> 0): exponential with mean 1/rate when
// burstiness is 1, else gamma(shape=burstiness, scale=1/(rate·burstiness)).
func Gap(r *rand.Rand, rate, burstiness float64) float64 {
	if burstiness == 1 {
		return r.ExpFloat64() / rate
	}
	return Gamma(r, burstiness) / (rate * burstiness)
}

// Gamma draws from the gamma distribution with the given shape (> 0) and
// scale 1, by Marsaglia and Tsang's method ("A simple method for generating
// gamma variables", 2000), boosted by U^(1/shape) for shape < 1. math/rand/v2
// has no gamma sampler; this is the algorithm numpy's and gonum's use.
func Gamma(r *rand.Rand, shape float64) float64 {
	if shape < 1 {
		// Gamma(a) = Gamma(a+1) · U^(1/a).
		u := r.Float64()
		for u == 0 {
			u = r.Float64()
		}
		return Gamma(r, shape+1) * math.Pow(u, 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		var x, v float64
		for {
			x = r.NormFloat64()
			v = 1 + c*x
			if v > 0 {
				break
			}
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x {
			return d * v
		}
		if u > 0 && math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
