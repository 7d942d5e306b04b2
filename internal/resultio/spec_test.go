package resultio

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

// referenceSpec reads the reference bench_serve module text from
// ../../shared/spec (relative to this package), skipping when absent.
func referenceSpec(t *testing.T) string {
	t.Helper()
	path := filepath.Join("..", "..", "shared", "spec", "002_e6a90106d7315bb3.txt")
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skipf("reference spec %s not found (needs the shared/ checkout beside the repo); skipping the column comparison", path)
	}
	require.NoError(t, err, "read reference spec %s", path)
	return string(b)
}

// specAssignment returns the right-hand side of the first line
// "NAME = ..." in the spec.
func specAssignment(t *testing.T, spec, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` = (.+)$`).FindStringSubmatch(spec)
	require.NotNilf(t, m, "reference spec has no line %q", name+" = ...")
	return strings.TrimSpace(m[1])
}

var pyStringRE = regexp.MustCompile(`'([^']*)'`)

func pyStringList(t *testing.T, literal string) []string {
	t.Helper()
	require.Truef(t, strings.HasPrefix(literal, "[") && strings.HasSuffix(literal, "]"), "not a list literal: %s", literal)
	var out []string
	for _, m := range pyStringRE.FindAllStringSubmatch(literal, -1) {
		out = append(out, m[1])
	}
	return out
}

func pyString(t *testing.T, literal string) string {
	t.Helper()
	m := pyStringRE.FindStringSubmatch(literal)
	require.NotNilf(t, m, "not a string literal: %s", literal)
	return m[1]
}

func TestColumnsEqualReference(t *testing.T) {
	spec := referenceSpec(t)
	assert.Equal(t, pyStringList(t, specAssignment(t, spec, "WORKLOAD_RESULT_COLUMNS")), WorkloadResultColumns,
		"WorkloadResultColumns must equal the reference WORKLOAD_RESULT_COLUMNS")
	assert.Equal(t, pyStringList(t, specAssignment(t, spec, "_WORKLOAD_TABLE_COLUMNS")), WorkloadTableColumns,
		"WorkloadTableColumns must equal the reference _WORKLOAD_TABLE_COLUMNS")
	assert.Equal(t, pyString(t, specAssignment(t, spec, "_WORKLOAD_SQL_SCHEMA")), WorkloadSQLSchema,
		"WorkloadSQLSchema must equal the reference _WORKLOAD_SQL_SCHEMA")
	assert.Equal(t, pyStringList(t, specAssignment(t, spec, "_TABLE_COLUMNS")), TableColumns,
		"TableColumns must equal the reference _TABLE_COLUMNS")
	assert.Equal(t, pyString(t, specAssignment(t, spec, "_SQL_SCHEMA")), SQLSchema,
		"SQLSchema must equal the reference _SQL_SCHEMA")
	assert.Equal(t, "re.compile('^[a-z_][a-z0-9_]*$')", specAssignment(t, spec, "_SQL_IDENTIFIER_RE"),
		"identifier pattern must be the reference's")
	assert.Equal(t, "^[a-z_][a-z0-9_]*$", sqlIdentifierRE.String(), "our identifier pattern")
}

// TestSweepResultEqualsBenchServeResult compares ResultColumns and the
// NewSweepResult defaults with the BenchServeResult dataclass signature in
// the spec ("class BenchServeResult(run_id: str = ”, ...)"); RESULT_COLUMNS
// is defined there as its field names.
func TestSweepResultEqualsBenchServeResult(t *testing.T) {
	spec := referenceSpec(t)
	m := regexp.MustCompile(`class BenchServeResult\((.*?)\) Aggregated`).FindStringSubmatch(spec)
	require.NotNil(t, m, "reference spec has no BenchServeResult signature")
	fieldRE := regexp.MustCompile(`(\w+): ([\w\[\]]+) = ('[^']*'|[^,]+)`)
	var names []string
	defaults := sweepRowMap(results.NewSweepResult())
	for _, f := range fieldRE.FindAllStringSubmatch(m[1], -1) {
		name, typ, def := f[1], f[2], strings.TrimSpace(f[3])
		names = append(names, name)
		got, ok := defaults[name]
		if !assert.Truef(t, ok, "SweepResult lacks field %s", name) {
			continue
		}
		switch {
		case def == "None":
			assert.Nilf(t, got, "%s (%s) defaults to None", name, typ)
		case typ == "str":
			assert.Equalf(t, pyString(t, def), got, "%s default", name)
		case typ == "bool":
			assert.Equalf(t, def == "True", got, "%s default", name)
		case typ == "int":
			want, err := strconv.Atoi(def)
			require.NoErrorf(t, err, "%s default %q", name, def)
			assert.Equalf(t, want, got, "%s default", name)
		case typ == "float":
			want, err := strconv.ParseFloat(def, 64)
			require.NoErrorf(t, err, "%s default %q", name, def)
			assert.Equalf(t, want, got, "%s default", name)
		default:
			t.Errorf("unexpected type %s for %s", typ, name)
		}
	}
	assert.Equal(t, names, ResultColumns, "ResultColumns must be the BenchServeResult fields in order")
}

// sweepRowMap maps ResultColumns to a sweep result's Row cells.
func sweepRowMap(r results.SweepResult) map[string]any {
	row := SweepRow(r)
	m := make(map[string]any, len(row))
	for i, c := range ResultColumns {
		m[c] = row[i]
	}
	return m
}

func TestColumnListsAgreeWithSchemas(t *testing.T) {
	schemaCols := func(schema string) []string {
		var out []string
		for _, part := range strings.Split(schema, ", ") {
			out = append(out, strings.Fields(part)[0])
		}
		return out
	}
	assert.Equal(t, WorkloadResultColumns, schemaCols(WorkloadSQLSchema), "workload schema columns follow WorkloadResultColumns")
	assert.Equal(t, ResultColumns, schemaCols(SQLSchema), "sweep schema columns follow ResultColumns")
	for _, c := range WorkloadTableColumns {
		assert.Containsf(t, WorkloadResultColumns, c, "table column %s is a result column", c)
	}
	for _, c := range TableColumns {
		assert.Containsf(t, ResultColumns, c, "sweep table column %s is a result column", c)
	}
}
