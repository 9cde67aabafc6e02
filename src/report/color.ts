// Colour for the terminal: only on a TTY, never with NO_COLOR set (https://no-color.org).
export interface Paint {
  red(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
  green(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

export const COLORS: Paint = {
  red: wrap(31, 39),
  yellow: wrap(33, 39),
  cyan: wrap(36, 39),
  dim: wrap(2, 22),
  bold: wrap(1, 22),
  green: wrap(32, 39),
};
const id = (s: string) => s;
export const PLAIN: Paint = { red: id, yellow: id, cyan: id, dim: id, bold: id, green: id };

export function useColor(stream: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return stream.isTTY === true;
}
