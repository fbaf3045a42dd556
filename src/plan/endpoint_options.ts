/**
 * The per-run options of the endpoints that take some, derived once from the config: the
 * JMESPath `response_field` (raw, template), the template's text (template), and how video jobs
 * are followed (video_generation: `--download-video-content`, `AIPERF_HTTP_VIDEO_POLL_INTERVAL`).
 */

import type { ProfileConfig } from "../config/options.ts";
import { parseExtraInputs } from "../config/extra_inputs.ts";
import { ConfigError } from "../config/parse.ts";
import type { Endpoint, EndpointOptions } from "../endpoints/mod.ts";
import { resolvePayloadTemplate } from "../endpoints/template.ts";

/** The environment variable setting the seconds between video status polls, as in AIPerf. */
export const VIDEO_POLL_ENV = "AIPERF_HTTP_VIDEO_POLL_INTERVAL";

/** The options these read. */
export type EndpointOptionsConfig = Pick<
  ProfileConfig,
  "endpointType" | "extraInputs" | "downloadVideoContent"
>;

/**
 * The endpoint's options for this run. `built`: the endpoint already built from them, whose
 * video job settings are taken as they are (the environment was read then). Throws a
 * `ConfigError` for a template endpoint without a template, a template file that cannot be
 * read, or a poll interval outside 0.01-60 s.
 */
export function endpointOptions(
  config: EndpointOptionsConfig,
  env: (name: string) => string | undefined = () => undefined,
  readText?: (path: string) => string,
  built?: Endpoint,
): EndpointOptions {
  const extras = parseExtraInputs(config.extraInputs);
  const out: EndpointOptions = {};
  if (extras.responseField !== undefined) out.responseField = extras.responseField;
  if (config.endpointType === "template") {
    if (extras.payloadTemplate === undefined) {
      throw new ConfigError(
        "--endpoint-type template needs a body template: --extra-inputs payload_template:<nv-embedqa, a file or an inline Jinja template>",
      );
    }
    try {
      out.payloadTemplate = resolvePayloadTemplate(extras.payloadTemplate, readText);
    } catch (e) {
      throw new ConfigError((e as Error).message);
    }
  }
  if (built?.job !== undefined) {
    if (built.job.download) out.downloadVideoContent = true;
    out.videoPollMs = built.job.pollIntervalMs;
  } else if (config.endpointType === "video_generation") {
    if (config.downloadVideoContent) out.downloadVideoContent = true;
    const poll = env(VIDEO_POLL_ENV);
    if (poll !== undefined && poll.trim() !== "") {
      const s = Number(poll);
      if (!Number.isFinite(s) || s < 0.01 || s > 60) {
        throw new ConfigError(
          `${VIDEO_POLL_ENV} must be seconds between 0.01 and 60, got "${poll}"`,
        );
      }
      out.videoPollMs = s * 1000;
    }
  }
  return out;
}
