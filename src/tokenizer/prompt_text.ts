/**
 * The input text of a request body, for counting its input sequence length when the server
 * reports no prompt tokens. Knows the body shapes of every endpoint reprise sends.
 */

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Text of a message `content`: a string, or the text parts of a content array. */
function contentText(content: unknown, out: string[]): void {
  if (typeof content === "string") {
    out.push(content);
  } else if (Array.isArray(content)) {
    for (const part of content) {
      if (typeof part === "string") out.push(part);
      else if (isObj(part) && typeof part.text === "string") {
        // Chat `text`, Responses `input_text`, Anthropic `text` blocks all carry `.text`;
        // image/audio parts have none and add nothing.
        const type = part.type;
        if (type === undefined || type === "text" || type === "input_text") out.push(part.text);
      }
    }
  }
}

/** Text of a list of chat-like messages (chat `messages`, Anthropic `messages`). */
function messagesText(messages: unknown, out: string[]): void {
  if (!Array.isArray(messages)) return;
  for (const m of messages) {
    if (isObj(m)) contentText(m.content, out);
  }
}

/** Strings of a value that is a string or a list of strings (completions `prompt`, embeddings `input`). */
function stringsText(v: unknown, out: string[]): void {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) {
    for (const s of v) if (typeof s === "string") out.push(s);
  }
}

/** Responses API `input`: a string, or items that are messages or bare content parts. */
function responsesInput(input: unknown, out: string[]): void {
  if (typeof input === "string") {
    out.push(input);
    return;
  }
  if (!Array.isArray(input)) return;
  for (const item of input) {
    if (typeof item === "string") out.push(item);
    else if (isObj(item)) {
      if ("content" in item) contentText(item.content, out);
      else if (item.type === "input_text" && typeof item.text === "string") out.push(item.text);
    }
  }
}

/** Rankings `query`: a string or `{text}`; passages/documents: strings or `{text}`. */
function textish(v: unknown, out: string[]): void {
  if (typeof v === "string") out.push(v);
  else if (isObj(v) && typeof v.text === "string") out.push(v.text);
  else if (Array.isArray(v)) { for (const x of v) textish(x, out); }
}

/**
 * The input text of a request body, joined with "\n": chat `messages`, completions `prompt`,
 * Responses `instructions` + `input`, Anthropic `system` + `messages`, embeddings `input`,
 * rankings `query`/`passages`/`documents`/`texts`, TGI `inputs`. Unknown shapes give "".
 */
export function promptText(body: unknown): string {
  if (!isObj(body)) return "";
  const out: string[] = [];
  if ("system" in body) contentText(body.system, out);
  if ("instructions" in body && typeof body.instructions === "string") {
    out.push(body.instructions);
  }
  if ("messages" in body) messagesText(body.messages, out);
  if ("prompt" in body) stringsText(body.prompt, out);
  if ("input" in body) {
    // Embeddings take a string or string list; the Responses API takes items.
    if (Array.isArray(body.input) && body.input.some(isObj)) responsesInput(body.input, out);
    else stringsText(body.input, out);
  }
  if ("inputs" in body) stringsText(body.inputs, out);
  if ("query" in body) textish(body.query, out);
  if ("passages" in body) textish(body.passages, out);
  if ("documents" in body) textish(body.documents, out);
  if ("texts" in body) textish(body.texts, out);
  return out.join("\n");
}
