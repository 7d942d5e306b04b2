package docs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/benchserve/benchserve/internal/loadgen"
)

// distributedDoc is the text of docs/distributed.md.
func distributedDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "distributed.md"))
	require.NoError(t, err, "read docs/distributed.md")
	return string(b)
}

// section is the text of the "## title" section of doc.
func section(t *testing.T, doc, title string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n## "+title+"\n")
	require.True(t, ok, "docs/distributed.md has a section %q", title)
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// codeBlocks returns the bodies of the ```lang blocks of text, in order.
func codeBlocks(text, lang string) []string {
	re := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```")
	var out []string
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestKubernetesManifest: the Indexed Job in docs/distributed.md decodes
// strictly (an unknown or misplaced field fails) into k8s.io/api's
// batch/v1 Job, and holds what the text relies on: Indexed completion,
// parallelism = completions, no retries, BENCHSERVE_SHARDS = completions
// so that every pod's JOB_COMPLETION_INDEX selects its own shard
// (loadgen.ShardFromEnv), $(VAR)s in args that Kubernetes can expand,
// mounts of declared volumes, and a merge of every shard's file.
func TestKubernetesManifest(t *testing.T) {
	sec := section(t, distributedDoc(t), "Kubernetes Indexed Job")
	blocks := codeBlocks(sec, "yaml")
	require.Len(t, blocks, 1, "one manifest in the section")
	var job batchv1.Job
	require.NoError(t, yaml.UnmarshalStrict([]byte(blocks[0]), &job), "the manifest decodes strictly into batch/v1 Job")

	assert.Equal(t, "batch/v1", job.APIVersion, "apiVersion")
	assert.Equal(t, "Job", job.Kind, "kind")
	spec := job.Spec
	require.NotNil(t, spec.CompletionMode, "completionMode set")
	assert.Equal(t, batchv1.IndexedCompletion, *spec.CompletionMode, "completionMode Indexed: every pod gets JOB_COMPLETION_INDEX")
	require.NotNil(t, spec.Completions, "completions set")
	require.NotNil(t, spec.Parallelism, "parallelism set")
	n := int(*spec.Completions)
	assert.Greater(t, n, 1, "several shards")
	assert.Equal(t, *spec.Completions, *spec.Parallelism, "parallelism = completions: every shard runs at once")
	require.NotNil(t, spec.BackoffLimit, "backoffLimit set")
	assert.Equal(t, int32(0), *spec.BackoffLimit, "no retried shard sending its load late")
	pod := spec.Template.Spec
	assert.Equal(t, corev1.RestartPolicyNever, pod.RestartPolicy, "restartPolicy Never")
	require.Len(t, pod.Containers, 1, "one container")
	c := pod.Containers[0]

	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	require.Contains(t, env, loadgen.EnvShards, "the container sets %s", loadgen.EnvShards)
	assert.Equal(t, strconv.Itoa(n), env[loadgen.EnvShards].Value, "%s = completions", loadgen.EnvShards)
	assert.NotContains(t, env, loadgen.EnvJobIndex, "JOB_COMPLETION_INDEX comes from Kubernetes, not the manifest")
	require.Contains(t, env, "SHARD_INDEX", "the index under a name args can expand")
	ref := env["SHARD_INDEX"].ValueFrom
	require.NotNil(t, ref, "SHARD_INDEX from the pod")
	require.NotNil(t, ref.FieldRef, "SHARD_INDEX from a field")
	assert.Equal(t, "metadata.annotations['batch.kubernetes.io/job-completion-index']", ref.FieldRef.FieldPath, "the completion index annotation")

	// Every pod, as Kubernetes starts it: the container's plain env plus
	// JOB_COMPLETION_INDEX. Each selects its own shard of n.
	seen := map[loadgen.Shard]bool{}
	for i := range n {
		podEnv := map[string]string{loadgen.EnvJobIndex: strconv.Itoa(i)}
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				podEnv[e.Name] = e.Value
			}
		}
		sh, err := loadgen.ShardFromEnv(func(k string) string { return podEnv[k] })
		require.NoError(t, err, "pod %d: the shard from its environment", i)
		assert.Equal(t, loadgen.Shard{Index: i, Count: n}, sh, "pod %d is shard %d/%d", i, i, n)
		seen[sh] = true
	}
	assert.Len(t, seen, n, "every shard once")

	// Kubernetes expands $(VAR) in args only for variables of the
	// container's env list.
	args := map[string]string{}
	for _, a := range c.Args {
		for _, m := range regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`).FindAllStringSubmatch(a, -1) {
			assert.Contains(t, env, m[1], "arg %q: $(%s) is in the container's env, so Kubernetes expands it", a, m[1])
		}
		name, value, ok := strings.Cut(a, "=")
		require.True(t, ok && strings.HasPrefix(name, "--"), "arg %q is --flag=value", a)
		args[name] = value
	}
	assert.Equal(t, "$(RUN_ID)", args["--run-id"], "one run id for every pod")
	assert.NotEmpty(t, env["RUN_ID"].Value, "RUN_ID set")
	_, err := time.Parse(time.RFC3339, env["BENCHSERVE_START_AT"].Value)
	assert.NoError(t, err, "BENCHSERVE_START_AT is an RFC 3339 time, as --start-at takes")
	assert.Contains(t, args["--output"], "$(SHARD_INDEX)", "one output file per shard")
	assert.NotContains(t, args, "--shard", "the shard comes from the environment")
	for _, f := range []string{"--url", "--workload", "--request-rate", "--duration"} {
		assert.Contains(t, args, f, "args give %s", f)
	}

	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	for _, m := range c.VolumeMounts {
		assert.Contains(t, volumes, m.Name, "mount %s is a declared volume", m.Name)
	}
	out := args["--output"]
	dir := out[:strings.LastIndex(out, "/")]
	var resultsVol string
	for _, m := range c.VolumeMounts {
		if m.MountPath == dir {
			resultsVol = m.Name
		}
	}
	require.NotEmpty(t, resultsVol, "--output %s is on a mounted volume", out)
	require.NotNil(t, volumes[resultsVol].PersistentVolumeClaim, "the results volume is a claim every pod and the merge share")

	// The merge reads every shard's file.
	m := regexp.MustCompile(`"args":(\["merge",[^\]]*\])`).FindStringSubmatch(sec)
	require.NotNil(t, m, "the section merges with args [\"merge\", …]")
	var mergeArgs []string
	require.NoError(t, json.Unmarshal([]byte(m[1]), &mergeArgs), "the merge args are a JSON list")
	var want []string
	for i := range n {
		want = append(want, strings.ReplaceAll(out, "$(SHARD_INDEX)", strconv.Itoa(i)))
	}
	assert.Equal(t, want, mergeArgs[2:], "merge OUT and every shard's --output, once")
}

// TestSlurmJobArray: the sbatch script in docs/distributed.md runs an
// array whose tasks select distinct shards through ShardFromEnv, as
// Slurm sets SLURM_ARRAY_TASK_* for each, with a shared run id and start
// time.
func TestSlurmJobArray(t *testing.T) {
	sec := section(t, distributedDoc(t), "Slurm job array")
	blocks := codeBlocks(sec, "sh")
	require.NotEmpty(t, blocks, "the section shows its script")
	script := blocks[0]
	m := regexp.MustCompile(`(?m)^#SBATCH --array=(\d+)-(\d+)\s*$`).FindStringSubmatch(script)
	require.NotNil(t, m, "the script asks for --array=LO-HI")
	lo, _ := strconv.Atoi(m[1])
	hi, _ := strconv.Atoi(m[2])
	n := hi - lo + 1
	seen := map[int]bool{}
	for task := lo; task <= hi; task++ {
		env := map[string]string{
			loadgen.EnvSlurmTaskID: strconv.Itoa(task), loadgen.EnvSlurmTaskCount: strconv.Itoa(n),
			loadgen.EnvSlurmTaskMin: strconv.Itoa(lo), loadgen.EnvSlurmTaskStep: "1",
		}
		sh, err := loadgen.ShardFromEnv(func(k string) string { return env[k] })
		require.NoError(t, err, "task %d: the shard from its environment", task)
		assert.Equal(t, n, sh.Count, "task %d: %d shards", task, n)
		assert.False(t, seen[sh.Index], "task %d: shard %d once", task, sh.Index)
		seen[sh.Index] = true
	}
	assert.Len(t, seen, n, "every shard once")
	for _, want := range []string{"--run-id", "$SLURM_ARRAY_TASK_ID"} {
		assert.Contains(t, script, want, "the script uses %s", want)
	}
	assert.Contains(t, sec, "export BENCHSERVE_START_AT=", "the submission gives every task one start time")
	assert.NotContains(t, script, "--shard", "the shard comes from Slurm's environment")
}
