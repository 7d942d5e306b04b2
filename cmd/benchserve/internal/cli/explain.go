package cli

import (
	"context"
	"errors"
	"net"
	"regexp"
	"strings"
	"syscall"

	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/serverinfo"
)

// chainRE matches the package prefixes of benchserve's own error chains
// ("runner: serverinfo: ", "stream: ") where a message or one of its
// parts begins. They name code, not what the user did.
var chainRE = regexp.MustCompile(`(^|: |; |\(|\n)(?:(?:runner|serverinfo|stream|sweep|loadgen|resultio|capacity|conformance|stats|openai|scrape|paths|results|history|report|fixtures|metrics|checks|workloads): )+`)

// userText is s without the package prefixes of benchserve's error chains.
func userText(s string) string { return chainRE.ReplaceAllString(s, "$1") }

// explain is the text of an error for a person: userText of its message,
// escaped and cut (present.Message). The error itself is left as it is,
// so errors.Is and errors.As still see its chain; files keep the
// engine's texts.
func explain(err error) string {
	if err == nil {
		return ""
	}
	return present.Message(userText(err.Error()))
}

// unreachable says, in the user's words, that nothing answered at url
// when benchserve asked it for its models (the first request of a run),
// what the network said, and what to do.
func unreachable(url string, err error) string {
	return present.Message("cannot list the models at " + serverinfo.RedactURL(url) + ": " + netCause(err) +
		"; is the server running, and is --url its address?")
}

// netCause is the short reason a connection failed: "connection
// refused", "no such host example.invalid", "no answer in time", "no
// route to host", else the last part of the transport error's message.
func netCause(err error) string {
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &dns) && dns.IsNotFound:
		return "no such host " + dns.Name
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to host"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "no answer in time"
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}

// connectError is runner.New's error for a person: unreachable's words
// for a server that did not answer at url, else explain's.
func connectError(url string, err error) string {
	if errors.Is(err, runner.ErrUnreachable) {
		return unreachable(url, err)
	}
	return explain(err)
}
