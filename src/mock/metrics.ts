/**
 * The mock's Prometheus `/metrics`, in vLLM's names, from its real state: streamed answers in
 * flight, prompt and generation tokens sent, and the time to first token of each answer.
 */

/** TTFT histogram bounds (seconds), vLLM's. */
const TTFT_BOUNDS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5];

/** What the mock counts for `/metrics`. */
export class MockMetrics {
  /** Streamed answers being sent. */
  running = 0;
  /** The slot model, when on: running and waiting are its batch and queue, plus its KV usage. */
  engine: { running: number; waiting: number; kvUsage: number } | null = null;
  promptTokens = 0;
  generationTokens = 0;
  #ttftCounts = new Array<number>(TTFT_BOUNDS.length + 1).fill(0);
  #ttftSum = 0;

  /** An answer's first token left `seconds` after its request arrived. */
  observeTtft(seconds: number): void {
    let i = 0;
    while (i < TTFT_BOUNDS.length && seconds > TTFT_BOUNDS[i]) i++;
    this.#ttftCounts[i]++;
    this.#ttftSum += seconds;
  }

  /** The exposition text for `model`. */
  text(model: string): string {
    const l = `model_name="${model.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
    const lines = [
      "# HELP vllm:num_requests_running Number of requests in model execution batches.",
      "# TYPE vllm:num_requests_running gauge",
      `vllm:num_requests_running{${l}} ${this.engine?.running ?? this.running}`,
      "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.",
      "# TYPE vllm:num_requests_waiting gauge",
      `vllm:num_requests_waiting{${l}} ${this.engine?.waiting ?? 0}`,
      "# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.",
      "# TYPE vllm:kv_cache_usage_perc gauge",
      `vllm:kv_cache_usage_perc{${l}} ${this.engine?.kvUsage ?? 0}`,
      "# HELP vllm:prompt_tokens_total Number of prefill tokens processed.",
      "# TYPE vllm:prompt_tokens_total counter",
      `vllm:prompt_tokens_total{${l}} ${this.promptTokens}`,
      "# HELP vllm:generation_tokens_total Number of generation tokens processed.",
      "# TYPE vllm:generation_tokens_total counter",
      `vllm:generation_tokens_total{${l}} ${this.generationTokens}`,
      "# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.",
      "# TYPE vllm:time_to_first_token_seconds histogram",
    ];
    let cumulative = 0;
    for (let i = 0; i <= TTFT_BOUNDS.length; i++) {
      cumulative += this.#ttftCounts[i];
      const le = i < TTFT_BOUNDS.length ? String(TTFT_BOUNDS[i]) : "+Inf";
      lines.push(`vllm:time_to_first_token_seconds_bucket{${l},le="${le}"} ${cumulative}`);
    }
    lines.push(`vllm:time_to_first_token_seconds_sum{${l}} ${this.#ttftSum}`);
    lines.push(`vllm:time_to_first_token_seconds_count{${l}} ${cumulative}`);
    return lines.join("\n") + "\n";
  }
}
