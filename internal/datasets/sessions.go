package datasets

import (
	"fmt"
	"iter"
	"time"

	"github.com/benchserve/benchserve/results"
)

// The sessions generator's parameters (GuideLLM's and AIPerf's
// multi-turn settings under benchserve's names; the number of sessions is
// num_prompts).
const (
	ParamSessionsTurns     = "sessions_turns"
	ParamSessionsInputLen  = "sessions_input_len"
	ParamSessionsOutputLen = "sessions_output_len"
	ParamSessionsThinkTime = "sessions_think_time_ms"
)

// SessionsName is the multi-turn generator's name (--dataset-name
// sessions).
const SessionsName = "sessions"

// Conversations is a generator of multi-turn sessions: its Requests
// yields, session after session, each turn's new user message only
// (Request.Group names the session, Request.Turn the turn, InputTokens
// the user message's tokens); the history a turn is sent with (the
// earlier user messages and the server's real answers) exists only once
// those answers arrived, so the runner builds it (a turn is sent after
// its previous answer, ThinkTime later).
type Conversations interface {
	Generator
	// Turns is the number of turns of every session, >= 1.
	Turns() int
	// ThinkTime is the wait between a turn's answer and the session's
	// next turn, >= 0.
	ThinkTime() time.Duration
}

// sessions is the "sessions" generator: num_prompts sessions of
// sessions_turns turns, each user turn sessions_input_len tokens asking
// sessions_output_len tokens.
type sessions struct {
	spec           Spec
	p              *Prompter
	turns, in, out int
	think          time.Duration
}

func newSessions(o Options) (Generator, error) {
	if err := o.Check(ParamSessionsTurns, ParamSessionsInputLen, ParamSessionsOutputLen, ParamSessionsThinkTime); err != nil {
		return nil, err
	}
	if err := o.CheckNoPath(); err != nil {
		return nil, err
	}
	var vals [4]int
	for i, p := range []struct {
		key      string
		def, min int
	}{{ParamSessionsTurns, 3, 1}, {ParamSessionsInputLen, 256, 1}, {ParamSessionsOutputLen, 128, 1}, {ParamSessionsThinkTime, 0, 0}} {
		v, err := o.Int(p.key, p.def)
		if err != nil {
			return nil, err
		}
		if v < p.min {
			return nil, fmt.Errorf("datasets: sessions: %s %d: want >= %d", p.key, v, p.min)
		}
		vals[i] = v
	}
	n := o.NumPrompts
	if n == 0 {
		n = defaultSessions
	}
	return &sessions{
		spec: Spec{Name: SessionsName, Seed: o.Seed, NumPrompts: n, Counting: o.Prompter.Method(),
			Params: map[string]any{ParamSessionsTurns: vals[0], ParamSessionsInputLen: vals[1],
				ParamSessionsOutputLen: vals[2], ParamSessionsThinkTime: vals[3]}},
		p: o.Prompter, turns: vals[0], in: vals[1], out: vals[2], think: time.Duration(vals[3]) * time.Millisecond,
	}, nil
}

// defaultSessions is the number of sessions when num_prompts is not
// given.
const defaultSessions = 100

func (g *sessions) Spec() Spec               { return g.spec }
func (g *sessions) Turns() int               { return g.turns }
func (g *sessions) ThinkTime() time.Duration { return g.think }

// Requests yields turn k of session i as "session-i.k" (Group
// "session-i", Turn k), session-major, each holding only its user
// message: texts drawn in that order from the seed, so the same seed
// gives the same user turns whatever the server answers.
func (g *sessions) Requests() iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		r := newRand(g.spec.Seed)
		for i := range g.spec.NumPrompts {
			for k := range g.turns {
				req := Request{
					ID:           fmt.Sprintf("session-%d.%d", i, k),
					Messages:     []results.Message{{"role": "user", "content": g.p.Text(r, g.in)}},
					InputTokens:  g.in,
					OutputTokens: g.out,
					Group:        fmt.Sprintf("session-%d", i),
					Turn:         k,
				}
				if !yield(req, nil) {
					return
				}
			}
		}
	}
}

func init() { Register(SessionsName, newSessions) }
