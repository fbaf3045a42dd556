/**
 * The mock's routes as a Hono app: one path per API shape, plus `/v1/models` and `/health`.
 * Each inference route reads the JSON body (400 when it is not a JSON object), draws the
 * request's injected fault, then hands over to the module that speaks that API.
 */

import { Hono } from "hono";
import { chatCompletions } from "./chat.ts";
import { completions } from "./completions.ts";
import type { Exchange, MockContext } from "./context.ts";
import { embeddings } from "./embeddings.ts";
import { decideFault } from "./faults.ts";
import { generate, generateStream } from "./generate.ts";
import { messages } from "./messages.ts";
import { cohereRerank, nimRanking, teiRerank } from "./rankings.ts";
import {
  anthropicError,
  cohereError,
  dropReply,
  jsonReply,
  openaiError,
  tgiError,
} from "./reply.ts";
import { responses } from "./responses.ts";

/** Values the server hands the app with each request. */
export interface MockBindings {
  /** When the request arrived (`performance.now()` ms). */
  arrival: number;
}

/** Builds an error answer in one vendor's shape. */
type ErrorShape = (status: number, message: string) => Response;

/** A route module's answer to a well-formed request. */
type Answer = (ctx: MockContext, ex: Exchange) => Response | Promise<Response>;

const openaiShape: ErrorShape = (status, message) =>
  openaiError(status, message, status >= 500 ? "server_error" : "invalid_request_error");

/** Wraps a route module with body parsing and fault injection. */
function inference(ctx: MockContext, answer: Answer, errorShape: ErrorShape = openaiShape) {
  return async (
    c: {
      req: { text(): Promise<string>; header(name: string): string | undefined };
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
    const fault = decideFault(ctx.opts, ctx.random);
    if (fault === "error") {
      return errorShape(500, "The mock server failed this request on purpose (error rate).");
    }
    if (fault === "drop") return dropReply();
    return answer(ctx, {
      body: body as Record<string, unknown>,
      arrival,
      truncate: fault === "truncate",
      requestId: c.req.header("x-request-id") ?? null,
    });
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

  app.get("/v1/models", () =>
    jsonReply(
      JSON.stringify({
        object: "list",
        data: [{ id: ctx.model, object: "model", created: started, owned_by: "reprise" }],
      }),
    ));
  app.get("/health", () => new Response(null, { status: 200 }));
  app.notFound((c) =>
    openaiError(404, `Unknown route: ${c.req.method} ${new URL(c.req.url).pathname}`)
  );
  return app;
}
