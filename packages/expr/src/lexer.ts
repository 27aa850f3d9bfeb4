import { ExprSyntaxError } from "./errors.js";

export type TokenKind = "number" | "string" | "identifier" | "punct" | "eof";

export interface Token {
  kind: TokenKind;
  /** For strings: the decoded value; for numbers: the literal text; otherwise the token text. */
  value: string;
  start: number;
  end: number;
}

const PUNCTUATION = [
  "=>",
  "==",
  "!=",
  "<=",
  ">=",
  "&&",
  "||",
  "??",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  ".",
  ":",
  "?",
  "!",
  "<",
  ">",
  "+",
  "-",
  "*",
  "/",
  "%",
];

const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  b: "\b",
  f: "\f",
  v: "\v",
  "0": "\0",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "/": "/",
};

const isDigit = (c: string) => c >= "0" && c <= "9";
const isIdentStart = (c: string) => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_";
const isIdentPart = (c: string) => isIdentStart(c) || isDigit(c);

/** Describes a token for error messages: `")"`, `identifier "foo"`, `end of input`. */
export function describeToken(token: Token): string {
  switch (token.kind) {
    case "eof":
      return "end of input";
    case "identifier":
      return `"${token.value}"`;
    case "number":
      return `number ${token.value}`;
    case "string":
      return `string ${JSON.stringify(token.value)}`;
    default:
      return `"${token.value}"`;
  }
}

/**
 * Tokens of `source` between `from` and `to`; offsets stay relative to the whole `source` so
 * that an expression embedded in a template reports positions in the template.
 */
export function tokenize(source: string, from = 0, to = source.length): Token[] {
  const tokens: Token[] = [];
  let i = from;
  const fail = (reason: string, at: number): never => {
    throw new ExprSyntaxError(reason, source, at);
  };
  while (i < to) {
    const c = source[i];
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      i++;
      continue;
    }
    const start = i;
    if (isDigit(c)) {
      while (i < to && isDigit(source[i])) i++;
      if (source[i] === "." && i + 1 < to && isDigit(source[i + 1])) {
        i++;
        while (i < to && isDigit(source[i])) i++;
      }
      if (source[i] === "e" || source[i] === "E") {
        let j = i + 1;
        if (source[j] === "+" || source[j] === "-") j++;
        if (!(j < to && isDigit(source[j])))
          fail(`malformed number "${source.slice(start, j)}" at ${start}, expected digits after the exponent`, start);
        i = j;
        while (i < to && isDigit(source[i])) i++;
      }
      if (i < to && isIdentPart(source[i]))
        fail(
          `malformed number "${source.slice(start, i + 1)}" at ${start}, expected a number such as 12, 1.5 or 2e3`,
          start,
        );
      tokens.push({ kind: "number", value: source.slice(start, i), start, end: i });
      continue;
    }
    if (isIdentStart(c)) {
      while (i < to && isIdentPart(source[i])) i++;
      tokens.push({ kind: "identifier", value: source.slice(start, i), start, end: i });
      continue;
    }
    if (c === '"' || c === "'") {
      i++;
      let value = "";
      for (;;) {
        if (i >= to || source[i] === "\n") fail(`unterminated string at ${start}, expected a closing ${c}`, start);
        const ch = source[i];
        if (ch === c) break;
        if (ch === "\\") {
          const e = source[i + 1];
          if (e === "u") {
            const hex = source.slice(i + 2, i + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex) || i + 6 > to)
              fail(`bad escape "\\u${hex}" at ${i}, expected \\u followed by 4 hex digits`, i);
            value += String.fromCharCode(Number.parseInt(hex, 16));
            i += 6;
            continue;
          }
          if (i + 1 >= to || !(e in ESCAPES))
            fail(
              `unknown escape "\\${e ?? ""}" at ${i}, expected one of \\n \\t \\r \\b \\f \\v \\0 \\\\ \\' \\" \\/ \\uXXXX`,
              i,
            );
          value += ESCAPES[e];
          i += 2;
          continue;
        }
        value += ch;
        i++;
      }
      i++;
      tokens.push({ kind: "string", value, start, end: i });
      continue;
    }
    const punct = PUNCTUATION.find((p) => source.startsWith(p, i) && i + p.length <= to);
    if (punct === undefined) {
      const hint =
        c === "="
          ? ', expected "==" for comparison'
          : c === "&" || c === "|"
            ? `, expected "${c}${c}"`
            : ", expected an operator, a name, a number or a string";
      fail(`unexpected character ${JSON.stringify(c)} at ${start}${hint}`, start);
    }
    i += punct!.length;
    tokens.push({ kind: "punct", value: punct!, start, end: i });
  }
  tokens.push({ kind: "eof", value: "", start: to, end: to });
  return tokens;
}
