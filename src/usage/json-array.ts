// Splits a JSON array, fed in chunks of text, into the source text of its elements, without holding
// more than one element: a multi-gigabyte `[{...},{...}]` export streams in the memory of one row.
// Each element keeps the line it starts on, for messages.

export interface ElementSink {
  element(text: string, line: number): void;
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COMMA = 44;
const NEWLINE = 10;

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9 || c === 0xfeff;
}

export class JsonArraySplitter {
  /** 0: before the array; 1: inside it; -1: after it. */
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Text of the element being read, from earlier chunks. */
  private carry = "";
  private inElement = false;
  /** The element is a bare value (number, literal) rather than an object, array or string. */
  private bare = false;
  private elementLine = 0;
  private line = 1;
  private closed = false;

  constructor(private readonly sink: ElementSink) {}

  /** The array was closed; anything but whitespace after it is refused. */
  get done(): boolean {
    return this.closed;
  }

  /** Feeds text; throws an Error whose message names the line on text that is not a JSON array. */
  write(text: string): void {
    let from = this.inElement ? 0 : -1;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === NEWLINE) this.line++;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.depth === 1 && this.inElement) {
            this.emit(text, from, i + 1);
            from = -1;
          }
        }
        continue;
      }
      if (this.closed) {
        if (!isSpace(c)) throw new Error(`line ${this.line}: text after the array's closing ]`);
        continue;
      }
      if (this.depth === 0) {
        if (isSpace(c)) continue;
        if (c !== OPEN_BRACKET) throw new Error(`line ${this.line}: expected a JSON array ([)`);
        this.depth = 1;
        continue;
      }
      if (this.depth === 1 && !this.inElement) {
        if (isSpace(c) || c === COMMA) continue;
        if (c === CLOSE_BRACKET) {
          this.closed = true;
          this.depth = 0;
          continue;
        }
        this.inElement = true;
        this.elementLine = this.line;
        from = i;
        if (c === OPEN_BRACE || c === OPEN_BRACKET) {
          this.depth = 2;
          this.bare = false;
        } else if (c === QUOTE) {
          this.inString = true;
          this.bare = false;
        } else {
          this.bare = true;
        }
        continue;
      }
      if (this.bare) {
        if (c === COMMA || c === CLOSE_BRACKET || isSpace(c)) {
          this.emit(text, from, i);
          from = -1;
          i--;
          if (c === NEWLINE) this.line--;
        }
        continue;
      }
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        this.depth--;
        if (this.depth === 1) {
          this.emit(text, from, i + 1);
          from = -1;
        }
      }
    }
    if (this.inElement) this.carry += text.slice(Math.max(0, from));
  }

  /** At the end of the input: the unfinished element's text and line, if the file ends inside one. */
  end(): { unfinished: { text: string; line: number } | null; closed: boolean } {
    const unfinished = this.inElement ? { text: this.carry, line: this.elementLine } : null;
    return { unfinished, closed: this.closed };
  }

  private emit(text: string, from: number, to: number): void {
    const body = this.carry + text.slice(Math.max(0, from), to);
    this.carry = "";
    this.inElement = false;
    this.bare = false;
    this.sink.element(body, this.elementLine);
  }
}
