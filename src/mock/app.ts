/**
 * The mock's routes as a Hono app: one path per API shape, plus `/v1/models`, `/health` and
 * `/mock/stats` (the request and fault counters). Each inference route reads the JSON body (400
 * when it is not a JSON object), takes the request's fault (its own choice or a seeded draw),
 * then hands over to the module that speaks that API and reshapes its answer for the fault.
 */

import { Hono } from "hono";
import { chatCompletions } from "./chat.ts";
import { completions } from "./completions.ts";
import type { Exchange, MockContext } from "./context.ts";
import { embeddings } from "./embeddings.ts";
import {
  bodyFault,
  type ErrorShape,
  type FaultParams,
  statusFault,
  truncates,
} from "./fault_answers.ts";
import {
  type AnswerFault,
  drawFault,
  FAULT_KINDS,
  type FaultKind,
  isWireFault,
  type Selection,
} from "./faults.ts";
import { generate, generateStream } from "./generate.ts";
import { messages } from "./messages.ts";
import { cohereRerank, nimRanking, teiRerank } from "./rankings.ts";
import { anthropicError, cohereError, jsonReply, openaiError, tgiError } from "./reply.ts";
import { responses } from "./responses.ts";
import { imageEdits, imageGenerations } from "./images.ts";
import { createVideo, getVideo, getVideoContent } from "./videos.ts";
import type { WireFault } from "./wire.ts";
import { checkMedia } from "./media_check.ts";

/** Values the server hands the app with each request, and what the app hands back. */
export interface MockBindings {
  /** When the request arrived (`performance.now()` ms). */
  arrival: number;
  /** The fault the request chose for itself (header or path prefix); absent: none. */
  selection?: Selection;
  /** Set by the app: the wire fault the HTTP server must make of the answer. */
  wire?: WireFault;
}

/** A route module's answer to a well-formed request. */
type Answer = (ctx: MockContext, ex: Exchange) => Response | Promise<Response>;

const openaiShape: ErrorShape = (status, message) =>
  openaiError(status, message, status >= 500 ? "server_error" : "invalid_request_error");

/** The request's fault: the one it chose, else a draw over the configured shares. */
function chooseFault(
  ctx: MockContext,
  env: MockBindings | undefined,
  shape: ErrorShape,
): FaultKind | null | Response {
  const sel = env?.selection;
  if (sel?.unknown != null) {
    return shape(
      400,
      `Unknown mock fault "${sel.unknown}"; kinds: ${FAULT_KINDS.join(", ")}.`,
    );
  }
  const kind = sel?.kind ?? drawFault(ctx.faults, ctx.random);
  if (kind === null) return null;
  if (isWireFault(kind) && ctx.opts.http !== "direct") {
    return shape(
      501,
      `The mock's fault "${kind}" is a wire fault: it needs the mock's own HTTP server ` +
        `(--http direct); --http deno cannot inject it.`,
    );
  }
  ctx.stats.faults[kind] = (ctx.stats.faults[kind] ?? 0) + 1;
  return kind;
}

/** Wraps a route module with body parsing and fault injection. */
function inference(ctx: MockContext, answer: Answer, errorShape: ErrorShape = openaiShape) {
  const params: FaultParams = {
    stallMs: ctx.opts.faultStallMs,
    eventBytes: ctx.opts.faultEventBytes,
    signal: ctx.signal,
  };
  return async (
    c: {
      req: { url: string; text(): Promise<string>; header(name: string): string | undefined };
      env: MockBindings | undefined;
    },
  ): Promise<Response> => {
    const arrival = c.env?.arrival ?? performance.now();
    const text = await c.req.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      return errorShape(
        400,
        `We could not parse the JSON body of your request: ${(e as Error).message}`,
      );
    }
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      return errorShape(400, "The request body must be a JSON object.");
    }
    await checkMedia(ctx.stats, text, body);
    const fault = chooseFault(ctx, c.env, errorShape);
    if (fault instanceof Response) return fault;
    let answerFault: AnswerFault | null = null;
    if (fault !== null && isWireFault(fault)) {
      if (c.env) c.env.wire = fault;
    } else answerFault = fault;
    if (answerFault !== null) {
      const url = new URL(c.req.url);
      const replaced = statusFault(answerFault, errorShape, url.pathname + url.search);
      if (replaced !== null) return replaced;
    }
    const res = await answer(ctx, {
      body: body as Record<string, unknown>,
      arrival,
      truncate: truncates(answerFault),
      requestId: c.req.header("x-request-id") ?? null,
    });
    if (answerFault === null || res.status !== 200) return res;
    if (answerFault === "stall" && c.env) c.env.wire = "flush-head";
    return await bodyFault(answerFault, res, params);
  };
}

/** The Hono app of a mock server sharing `ctx`. */
export function mockApp(ctx: MockContext): Hono<{ Bindings: MockBindings }> {
  const app = new Hono<{ Bindings: MockBindings }>();
  const started = Math.floor(Date.now() / 1000);

  app.post("/v1/chat/completions", inference(ctx, chatCompletions));
  app.post("/v1/completions", inference(ctx, completions));
  app.post("/v1/responses", inference(ctx, responses));
  app.post("/v1/embeddings", inference(ctx, embeddings));
  app.post("/v1/ranking", inference(ctx, nimRanking));
  app.post("/v2/rerank", inference(ctx, cohereRerank, cohereError));
  app.post("/rerank", inference(ctx, teiRerank, (status, message) => tgiError(status, message)));
  app.post(
    "/v1/messages",
    inference(ctx, messages, (status, message) => anthropicError(status, message)),
  );
  app.post("/generate", inference(ctx, generate, (status, message) => tgiError(status, message)));
  app.post(
    "/generate_stream",
    inference(ctx, generateStream, (status, message) => tgiError(status, message)),
  );

  app.post("/v1/images/generations", inference(ctx, imageGenerations));
  app.post(
    "/v1/images/edits",
    (c) => imageEdits(ctx, c.req.raw, c.env?.arrival ?? performance.now()),
  );
  app.post("/v1/videos", inference(ctx, createVideo));
  app.get("/v1/videos/:id", (c) => getVideo(ctx, c.req.param("id")));
  app.get("/v1/videos/:id/content", (c) => getVideoContent(ctx, c.req.param("id")));

  app.get("/v1/models", () =>
    jsonReply(
      JSON.stringify({
        object: "list",
        data: [{ id: ctx.model, object: "model", created: started, owned_by: "reprise" }],
      }),
    ));
  app.get("/health", () => new Response(null, { status: 200 }));
  app.get("/mock/stats", () => jsonReply(JSON.stringify(ctx.stats)));
  app.notFound((c) =>
    openaiError(404, `Unknown route: ${c.req.method} ${new URL(c.req.url).pathname}`)
  );
  return app;
}
