# A jq script as an AIPerf user writes it from AIPerf's documentation (the JSON export schema,
# docs/reference/json-export-schema.md, and the per-request records of profile_export.jsonl):
# one line of key results per run for a spreadsheet or a CI check.
#
#   jq -n -r -f summary.jq --slurpfile summary profile_export_aiperf.json \
#     --slurpfile records profile_export.jsonl
#
# reprise's artifacts must go through it unchanged (tests/aiperf_compat/compat_test.ts).

($summary[0]) as $s
| ($records | map(select(.metadata.benchmark_phase == "profiling"))) as $profiling
| ($profiling | map(select(.error == null))) as $ok
| ($ok | map(.metrics.request_latency.value)) as $latencies
| {
    schema_version: $s.schema_version,
    benchmark_id: $s.benchmark_id,
    run_benchmark_id: $s.run_info.benchmark_id,
    random_seed: $s.run_info.random_seed,
    cli_command: $s.run_info.cli_command,
    start_time: $s.start_time,
    end_time: $s.end_time,
    was_cancelled: $s.was_cancelled,
    model: $s.input_config.models.items[0].name,
    endpoint_type: $s.input_config.endpoint.type,
    streaming: $s.input_config.endpoint.streaming,
    concurrency: (($s.input_config.phases // []) | map(select(.name == "profiling"))[0].concurrency),
    request_count: $s.request_count.avg,
    request_throughput: $s.request_throughput.avg,
    request_throughput_unit: $s.request_throughput.unit,
    output_token_throughput: $s.output_token_throughput.avg,
    benchmark_duration_sec: $s.benchmark_duration.avg,
    ttft_p50_ms: $s.time_to_first_token.p50,
    ttft_p99_ms: $s.time_to_first_token.p99,
    itl_avg_ms: $s.inter_token_latency.avg,
    latency_p90_ms: $s.request_latency.p90,
    latency_unit: $s.request_latency.unit,
    latency_count: $s.request_latency.count,
    errors: ($s.error_summary | map(.count) | add // 0),
    error_types: ($s.error_summary | map(.error_details.type) | unique),
    records: ($profiling | length),
    records_ok: ($ok | length),
    records_latency_max_ms: ($latencies | max),
    records_first_start_ns: ($profiling | map(.metadata.request_start_ns) | min),
    records_last_end_ns: ($profiling | map(.metadata.request_end_ns) | max),
    records_osl_total: ($ok | map(.metrics.output_sequence_length.value) | add),
    records_workers: ($profiling | map(.metadata.worker_id) | unique | length)
  }
