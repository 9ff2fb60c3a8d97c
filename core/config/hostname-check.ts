import { quoted } from "./quote.ts";

function characterProblem(name: string): string | undefined {
  const bad = [...name].find((ch) => !/[A-Za-z0-9.-]/.test(ch));
  if (bad !== undefined) {
    const shownBad = bad === " " ? "a space" : quoted(bad);
    return `it contains ${shownBad}; a hostname has only letters a-z, digits 0-9, "-" and dots between labels`;
  }
  if (/[A-Z]/.test(name)) return `it has uppercase letters; write it in lowercase (${quoted(name.toLowerCase())})`;
  return undefined;
}

function labelProblem(label: string): string | undefined {
  if (label.length > 63) return `label ${quoted(label)} is ${label.length} characters long; a label has at most 63`;
  if (label.startsWith("-")) return `label ${quoted(label)} starts with "-"`;
  if (label.endsWith("-")) return `label ${quoted(label)} ends with "-"`;
  return undefined;
}

/** Which RFC 1123 rule `name` breaks, if any. */
export function hostnameProblem(name: string): string | undefined {
  if (name.length > 253) return `it is ${name.length} characters long; a hostname has at most 253`;
  if (name.split(".").includes("")) return "it has an empty label (a dot at the start or end, or two dots in a row)";
  const characters = characterProblem(name);
  if (characters) return characters;
  if (/^[\d.]+$/.test(name)) return "it has only digits and dots, so it reads as an IP address; a hostname needs a letter";
  return name.split(".").map(labelProblem).find((problem) => problem !== undefined);
}
