/**
 * The mock's `/metrics` in SGLang's names (`reprise mock-server --metrics-format sglang`): the
 * same figures as the vLLM exposition, renamed as SGLang's server names them.
 */

/** vLLM's name → SGLang's, for the families the mock serves. */
const RENAMES: [string, string][] = [
  ["vllm:num_requests_running", "sglang:num_running_reqs"],
  ["vllm:num_requests_waiting", "sglang:num_queue_reqs"],
  ["vllm:prompt_tokens_total", "sglang:prompt_tokens_total"],
  ["vllm:generation_tokens_total", "sglang:generation_tokens_total"],
  ["vllm:time_to_first_token_seconds", "sglang:time_to_first_token_seconds"],
  ["vllm:kv_cache_usage_perc", "sglang:token_usage"],
  ["vllm:request_queue_time_seconds", "sglang:queue_time_seconds"],
];

/** The vLLM exposition `text` in SGLang's names; families SGLang has no name for are left out. */
export function sglangExposition(text: string): string {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const name = line.startsWith("#") ? line.split(/\s+/)[2] : line.split(/[{\s]/)[0];
    const base = RENAMES.find(([v]) => name === v || name.startsWith(`${v}_`));
    if (base !== undefined) out.push(line.replace(base[0], base[1]));
  }
  return out.join("\n") + "\n";
}
