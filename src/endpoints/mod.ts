/** The registry of endpoint types: `--endpoint-type` value → `Endpoint`. */

import type { Endpoint, FormatOptions, TurnInput } from "./types.ts";
import { chatEndpoint } from "./chat.ts";
import { completionsEndpoint } from "./completions.ts";
import { responsesEndpoint } from "./responses.ts";
import { messagesEndpoint } from "./messages.ts";
import { chatEmbeddingsEndpoint, embeddingsEndpoint, nimEmbeddingsEndpoint } from "./embeddings.ts";
import { cohereRankingsEndpoint, hfTeiRankingsEndpoint, nimRankingsEndpoint } from "./rankings.ts";
import { huggingfaceGenerateEndpoint } from "./huggingface_generate.ts";
import { createRawEndpoint, rawEndpoint } from "./raw.ts";
import { imageGenerationEndpoint } from "./image_generation.ts";
import { imageEditEndpoint } from "./image_edit.ts";
import {
  createVideoEndpoint,
  DEFAULT_VIDEO_POLL_S,
  videoGenerationEndpoint,
} from "./video_generation.ts";
import { createTemplateEndpoint } from "./template.ts";

const ENDPOINTS: readonly Endpoint[] = [
  chatEndpoint,
  completionsEndpoint,
  responsesEndpoint,
  messagesEndpoint,
  embeddingsEndpoint,
  chatEmbeddingsEndpoint,
  nimEmbeddingsEndpoint,
  nimRankingsEndpoint,
  cohereRankingsEndpoint,
  hfTeiRankingsEndpoint,
  huggingfaceGenerateEndpoint,
  imageGenerationEndpoint,
  imageEditEndpoint,
  videoGenerationEndpoint,
  rawEndpoint,
];

const BY_TYPE = new Map(ENDPOINTS.map((e) => [e.type, e]));

/** Every known endpoint type, in registry order (`template` is built per run: it comes last). */
export const endpointTypes: string[] = [...ENDPOINTS.map((e) => e.type), "template"];

/** Per-run options some endpoints take (from `--extra-inputs` and their own flags). */
export interface EndpointOptions {
  /** JMESPath expression selecting the answer's text (`raw` and `template`). */
  responseField?: string;
  /** The Jinja template of the bodies, resolved to its text (`template`, which needs it). */
  payloadTemplate?: string;
  /** Download each video once its job completed (`video_generation`). */
  downloadVideoContent?: boolean;
  /** Milliseconds between a video job's status polls (`video_generation`); default 100. */
  videoPollMs?: number;
}

/**
 * The endpoint for `type`; throws an error listing the known types when there is none, or
 * when `options.responseField` is not a valid JMESPath expression.
 */
export function getEndpoint(type: string, options: EndpointOptions = {}): Endpoint {
  if (type === "template") {
    if (options.payloadTemplate === undefined) {
      throw new Error(
        "the template endpoint needs a body template: --extra-inputs payload_template:<a named template, a file or the template>",
      );
    }
    return createTemplateEndpoint({
      template: options.payloadTemplate,
      responseField: options.responseField,
    });
  }
  if (
    type === "video_generation" &&
    (options.downloadVideoContent === true || options.videoPollMs !== undefined)
  ) {
    return createVideoEndpoint({
      pollIntervalMs: options.videoPollMs ?? DEFAULT_VIDEO_POLL_S * 1000,
      download: options.downloadVideoContent === true,
    });
  }
  const endpoint = BY_TYPE.get(type);
  if (endpoint === undefined) {
    throw new Error(
      `Unknown endpoint type "${type}": expected one of ${endpointTypes.join(", ")}`,
    );
  }
  if (type === "raw" && options.responseField !== undefined) {
    return createRawEndpoint({ responseField: options.responseField });
  }
  return endpoint;
}

/** The URL path to request: the streaming path when streaming and the endpoint has one. */
export function endpointPath(endpoint: Endpoint, streaming: boolean): string {
  return streaming && endpoint.streamingPath !== undefined ? endpoint.streamingPath : endpoint.path;
}

/**
 * The JSON body of one turn in the endpoint's API shape, `--extra-inputs` merged last. Throws
 * when the endpoint only replays bodies (raw) or the turn carries what the API cannot take.
 */
export function formatTurn(endpoint: Endpoint, turn: TurnInput, opts: FormatOptions): string {
  if (endpoint.formatPayload === undefined) {
    throw new Error(
      `the ${endpoint.type} endpoint sends dataset bodies as they are and cannot build one from a prompt`,
    );
  }
  if ((turn.videos?.length ?? 0) > 0 && !endpoint.takesVideo) {
    throw new Error(`the ${endpoint.type} endpoint cannot send videos`);
  }
  return JSON.stringify(endpoint.formatPayload(turn, opts));
}

export type {
  Endpoint,
  FormatOptions,
  Parsed,
  SseEvent,
  StreamState,
  TurnInput,
  VideoJob,
} from "./types.ts";
