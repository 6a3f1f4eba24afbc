/** A reply as a model writes one, for the chat renderer's test and benchmark. */

/** Sections of prose, lists and code blocks, deterministic, `chars` long or a little more. */
export function sampleReply(chars: number): string {
  const words = "the daemon keeps every event and recalls what matters when a person asks again later".split(" ");
  let seed = 7;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const sentence = () => {
    const n = 8 + rnd(10);
    const s = Array.from({ length: n }, () => words[rnd(words.length)]).join(" ");
    return `${s[0]?.toUpperCase()}${s.slice(1)}${rnd(4) === 0 ? ` with \`code_${rnd(99)}\`` : ""}.`;
  };
  const parts: string[] = [];
  let section = 0;
  while (parts.join("\n\n").length < chars) {
    parts.push(`## Part ${++section}`);
    parts.push(Array.from({ length: 2 + rnd(3) }, sentence).join(" "));
    if (rnd(2) === 0) parts.push(Array.from({ length: 3 + rnd(3) }, () => `- ${sentence()}`).join("\n"));
    if (rnd(3) === 0)
      parts.push(
        `\`\`\`ts\n${Array.from({ length: 6 + rnd(12) }, (_, i) => `const value${i} = compute(${i}, "${words[rnd(words.length)]}");`).join("\n")}\n\`\`\``,
      );
    parts.push(Array.from({ length: 1 + rnd(3) }, sentence).join(" "));
  }
  return parts.join("\n\n");
}
