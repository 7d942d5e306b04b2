package loadgen_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/results"
)

func TestParseGoodput(t *testing.T) {
	slo, err := loadgen.ParseGoodput("ttft:500", "tpot:50.5")
	require.NoError(t, err, "separate arguments")
	assert.Equal(t, results.GoodputSLO{TTFTms: 500, TPOTms: 50.5}, slo)
	slo, err = loadgen.ParseGoodput("ttft:500 tpot:50,e2el:3000")
	require.NoError(t, err, "one argument")
	assert.Equal(t, results.GoodputSLO{TTFTms: 500, TPOTms: 50, E2ELms: 3000}, slo)

	for arg, want := range map[string]string{
		"ttft":          `goodput "ttft": want metric:milliseconds`,
		"itl:5":         `goodput "itl:5": unknown metric "itl" (want ttft, tpot or e2el)`,
		"ttft:-1":       `goodput "ttft:-1": "-1" is not a positive number of milliseconds`,
		"ttft:abc":      `"abc" is not a positive number`,
		"ttft:1 ttft:2": `goodput "ttft:2": ttft given twice`,
		"":              "goodput: no limit given",
		"tpot:inf":      `"inf" is not a positive number`,
	} {
		_, err := loadgen.ParseGoodput(arg)
		require.Error(t, err, arg)
		assert.Contains(t, err.Error(), want, arg)
	}
}
