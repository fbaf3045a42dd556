/**
 * Words that are each a single token in OpenAI's o200k_base when written with a leading space: the
 * mock generates its answers from them, so that a client counting output with that tokenizer
 * finds exactly the number of tokens the server reports.
 */

/** Words that are each one o200k_base token when written with a leading space. */
export const WORDS: readonly string[] = (
  "the of and to in is that for it as with was on be by at this are from or have an not but " +
  "they which you one had all were we can there their has more when been if will so some would " +
  "what out about into than them only other its time like then also two these may first any new " +
  "such could after most over our where made many well even back way much should because each " +
  "those people just how very through work long still same three own life good years while down " +
  "world here between might both last being under great never another know day state year since " +
  "right used part get around take small every place without high again off before must old " +
  "large little few later find want form house point give number often think end public home " +
  "water make lot hand night order early group set went head best line kind law second thing " +
  "fact city nothing sense power area next among free half love read light family level body " +
  "music name word field story"
).split(" ");

/** Token texts (" the", " of", …), in generation order. */
export const TOKEN_TEXTS: readonly string[] = WORDS.map((w) => " " + w);

/** Token texts as JSON string literals, ready to splice into wire text. */
export const TOKEN_JSON: readonly string[] = TOKEN_TEXTS.map((t) => JSON.stringify(t));

/** The k-th generated token as a JSON string literal (`" the"` with its quotes). */
export function tokenJson(k: number): string {
  return TOKEN_JSON[k % TOKEN_JSON.length];
}

/** The text of the k-th generated token. */
export function tokenText(k: number): string {
  return TOKEN_TEXTS[k % TOKEN_TEXTS.length];
}

/** The text of `count` tokens starting at the k-th one. */
export function tokensText(start: number, count: number): string {
  let s = "";
  for (let k = start; k < start + count; k++) s += TOKEN_TEXTS[k % TOKEN_TEXTS.length];
  return s;
}
