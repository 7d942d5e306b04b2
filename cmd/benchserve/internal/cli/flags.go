package cli

import (
	"fmt"
	"slices"
	"strings"
)

// choiceValue is a string flag restricted to choices (argparse choices=).
type choiceValue struct {
	val     string
	choices []string
}

func newChoice(def string, choices ...string) *choiceValue {
	return &choiceValue{val: def, choices: choices}
}

func (c *choiceValue) String() string {
	if c == nil {
		return ""
	}
	return c.val
}

func (c *choiceValue) Set(s string) error {
	if !slices.Contains(c.choices, s) {
		return fmt.Errorf("invalid choice: %q (choose from %s)", s, strings.Join(c.choices, ", "))
	}
	c.val = s
	return nil
}

// optString is a string flag that records whether it was given
// (argparse default=None).
type optString struct {
	val string
	set bool
}

func (o *optString) String() string {
	if o == nil {
		return ""
	}
	return o.val
}

func (o *optString) Set(s string) error { o.val, o.set = s, true; return nil }

// listValue collects every occurrence of a repeatable flag.
type listValue []string

func (l *listValue) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, " ")
}

func (l *listValue) Set(s string) error { *l = append(*l, s); return nil }

// expandNargs rewrites argparse nargs="*" flags for Go's flag package:
// "--override-field a=1 b=2 --tag x" becomes "--override-field=a=1
// --override-field=b=2 --tag x". Values are taken until the next argument
// that starts with "-" (or "--" ends flag parsing).
func expandNargs(args []string, names ...string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name := strings.TrimLeft(a, "-")
		if !strings.HasPrefix(a, "-") || !slices.Contains(names, name) {
			out = append(out, a)
			continue
		}
		n := 0
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			out = append(out, "--"+name+"="+args[i])
			n++
		}
		if n == 0 {
			// nargs="*" with no value: nothing to add, as argparse gives [].
			continue
		}
	}
	return out
}
