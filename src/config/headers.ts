/**
 * What makes a `-H` header sendable: names that are RFC 9110 tokens and values without CR, LF
 * or NUL (which would end or split the header on the wire). Checked when the options are read.
 */

/** An RFC 9110 token: what a header name must be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** What a forbidden character is called in messages. */
function controlName(c: string): string {
  return c === "\r" ? "a carriage return (CR)" : c === "\n" ? "a line feed (LF)" : "a NUL byte";
}

/**
 * Why a header value cannot be sent (it holds CR, LF or NUL, which would end or split the
 * header), or undefined when it can.
 */
export function headerValueProblem(value: string): string | undefined {
  const bad = /[\r\n\0]/.exec(value);
  return bad ? `contains ${controlName(bad[0])}, which a header value cannot hold` : undefined;
}

/**
 * Why `-H` values cannot be sent as headers, or undefined when they can: each must be
 * `Name: value` or a JSON object, every name an RFC 9110 token, no value holding CR, LF or NUL.
 * The message names the header by its position and never quotes a value, which may be secret.
 */
export function headersProblem(values: readonly string[]): string | undefined {
  for (const [i, v] of values.entries()) {
    const which = values.length > 1 ? `header ${i + 1}` : "the header";
    const t = v.trim();
    let pairs: [string, string][];
    if (t.startsWith("{")) {
      let obj: unknown;
      try {
        obj = JSON.parse(t);
      } catch (e) {
        // The parser's message quotes the text: only the position is kept.
        const at = /position (\d+)/.exec((e as Error).message)?.[1];
        return `must be \`Name: value\` or a JSON object: ${which} is not valid JSON` +
          (at === undefined ? "" : ` (at character ${at})`);
      }
      if (typeof obj !== "object" || obj === null || Array.isArray(obj)) {
        return `must be \`Name: value\` or a JSON object: ${which} is not a JSON object`;
      }
      pairs = Object.entries(obj).map(([k, x]) => [k, String(x)]);
    } else {
      const colon = t.indexOf(":");
      if (colon <= 0) {
        return `must be \`Name: value\` or a JSON object: ${which} has ${
          colon === 0 ? "no name before" : "no"
        } ":"`;
      }
      pairs = [[t.slice(0, colon).trim(), t.slice(colon + 1).trim()]];
    }
    for (const [name, value] of pairs) {
      if (!TOKEN.test(name)) {
        const bad = /[^!#$%&'*+\-.^_`|~0-9A-Za-z]/.exec(name)?.[0];
        const shown = bad === undefined
          ? "is empty"
          : /[\r\n\0]/.test(bad)
          ? `contains ${controlName(bad)}`
          : `contains ${JSON.stringify(bad)}`;
        return `${which}'s name ${shown}: a header name is letters, digits and ` +
          "!#$%&'*+-.^_`|~ only";
      }
      const problem = headerValueProblem(value);
      if (problem) return `header "${name}" ${problem}`;
    }
  }
  return undefined;
}
