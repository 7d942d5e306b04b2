// Package load generates load against an OpenAI-compatible server and
// summarizes it the way serious serving benchmarks do (vLLM's bench serve,
// AIPerf, GuideLLM).
//
// Two ways to send requests:
//
//   - RunClosed: a closed loop of N concurrent streams, each sending its
//     next request when the previous one ends (the reference's mode), for a
//     request count or a duration.
//   - RunOpen: an open loop at a request rate with Poisson or gamma
//     (burstiness) arrivals from a seeded schedule (Schedule); a request is
//     sent on schedule whether or not earlier ones finished, and each
//     records its lag behind the schedule, so a client that cannot keep up
//     is visible in the stats (results.LoadStats.Lag, results.LoadStats.Late), never silent.
//     A cap on requests in flight bounds it; the overflow either waits
//     (and is late) or is dropped and counted.
//
// Each request is a Sample (timings, the engine's verdict as an error
// kind, Classify for a bare stream error); the statistics of a run
// (results.LoadStats) are computed outside the generator, in package
// summary (summary.Run, summary.Requests), the one path from records
// and samples to statistics and SLO verdicts.
//
// A run can be spread over several processes or machines (Shard: "I/N",
// BENCHSERVE_SHARD, Kubernetes Indexed Jobs' JOB_COMPLETION_INDEX with
// BENCHSERVE_SHARDS, or Slurm job arrays' SLURM_ARRAY_TASK_ID with
// SLURM_ARRAY_TASK_COUNT; see ShardFromEnv): Shard.Open gives shard I of N its part of an
// open-loop schedule (rate/N, its own seed), and Shard.Global numbers its
// requests within the whole run; resultio.MergePayloads joins the shards'
// payloads afterwards.
package loadgen
