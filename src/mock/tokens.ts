/**
 * The mock's tokens and its prompt counter. Every generated token is one common English word with
 * a leading space, each a single token in OpenAI's o200k_base, so a client counting output with
 * that tokenizer finds exactly the number of tokens the server reports.
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

/** Offset of reasoning tokens in the word list, so reasoning text differs from the answer's. */
export const REASONING_OFFSET = 97;

/** Counts prompts in o200k_base and maps generated tokens to their ids. */
export interface Tokenizer {
  /** Number of o200k_base tokens in `text` (no special tokens). */
  count(text: string): number;
  /** The o200k_base id of the k-th generated token. */
  id(k: number): number;
}

let loading: Promise<Tokenizer> | null = null;

/**
 * Loads o200k_base once (about 60 ms), on first use, so importing the mock stays cheap.
 * Like tiktoken's default `encode`, counting rejects text that contains special-token text such
 * as "<|endoftext|>": it throws `Disallowed special token found: <|endoftext|>`.
 */
export function loadTokenizer(): Promise<Tokenizer> {
  loading ??= Promise.all([
    import("../tokenizer/o200k.ts"),
    import("../tokenizer/o200k_count.ts"),
  ]).then(([o200k, { countO200k }]) => {
    const ids = TOKEN_TEXTS.map((t) => o200k.encodeO200k(t)[0]);
    const special = new RegExp(
      `(${[...o200k.O200K_SPECIAL_TOKENS.keys()].map(RegExp.escape).join("|")})`,
    );
    return {
      count: (text: string) => {
        if (text === "") return 0;
        const found = special.exec(text);
        if (found !== null) throw new Error(`Disallowed special token found: ${found[0]}`);
        return countO200k(text);
      },
      id: (k: number) => ids[k % ids.length],
    };
  });
  return loading;
}
