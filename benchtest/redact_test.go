package benchtest_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/fixtures"
)

func TestServerAttrHasNoURLPassword(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	secretURL := strings.Replace(srv.URL, "http://", "http://alice:s3cr3t-pw@", 1)
	out, ok := runInnerArgs(t, "TestInnerMixed", []string{"-test.v=test2json"}, "BENCHSERVE_URL="+secretURL, "BENCHSERVE_TAGS=good")
	assert.True(t, ok, "the fixture ignores basic auth: %s", out)
	assert.Contains(t, out, "server http://alice:xxxxx@127.0.0.1:", "the server attribute names the server, password redacted")
	assert.NotContains(t, out, "s3cr3t-pw", "the password is in no line of the go test -json stream (ATTR lines go into JUnit files)")
}
