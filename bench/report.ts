/** One figure per line, `bench: NAME VALUE UNIT`, each name once per run. */
const seen = new Set<string>();

export function report(name: string, value: number, unit: string, digits = 1): void {
  if (seen.has(name)) throw new Error(`bench figure ${name} reported twice`);
  seen.add(name);
  console.log(`bench: ${name} ${value.toFixed(digits)} ${unit}`);
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
}
