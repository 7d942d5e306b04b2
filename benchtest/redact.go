package benchtest

import (
	"fmt"

	"github.com/benchserve/benchserve/internal/serverinfo"
)

// redacted formats v (an error or a message quoting url) with the
// password and tokens of url replaced (serverinfo.SecretReplacer): test
// logs, t.Attr values and JUnit files never carry them.
func redacted(url string, v any) string {
	s := fmt.Sprint(v)
	if r := serverinfo.SecretReplacer(url); r != nil {
		return r.Replace(s)
	}
	return s
}
