import { type Cidr, cidrsOverlap, parseCidr, subnetText } from "../net.ts";
import type { Names, Path, PathError } from "../schema.ts";
import { managementSubnet } from "./management-subnet.ts";
import { itemsOf, type Rule } from "./rule.ts";

interface Range {
  index: number;
  text: string;
  cidr: Cidr;
}

function rangeProblems(range: Range, earlier: Range[], management: Cidr | undefined, names: Names): Array<Omit<PathError, "path">> {
  const { text, cidr } = range;
  const addressField = names.field(["network", "address"]);
  const problems: Array<Omit<PathError, "path">> = [];
  if (cidr.ip.value !== cidr.first) {
    problems.push({ message: `${text} has host bits set: the range starts at ${subnetText(cidr)}`, hint: `write ${subnetText(cidr)}` });
  }
  if (management && management.ip.family !== cidr.ip.family) {
    problems.push({
      message: `${text} is IPv${cidr.ip.family}, but the node's address (${addressField}) is IPv${management.ip.family}; floating IPs are routed over the management network`,
    });
  } else if (management && cidrsOverlap(cidr, management)) {
    problems.push({ message: `${text} overlaps the management subnet ${subnetText(management)} (from ${addressField})` });
  }
  const overlapped = earlier.filter((other) => cidrsOverlap(cidr, other.cidr));
  if (overlapped.length > 0) {
    const named = overlapped.map((other) => `${names.field(["network", "floatingIpCidrs", other.index])} (${other.text})`);
    problems.push({ message: `${text} overlaps ${named.join(" and ")}` });
  }
  return problems;
}

export const validFloatingRanges: Rule = (draft, { names }) => {
  const management = managementSubnet(draft);
  const ranges: Range[] = [];
  const errors: PathError[] = [];
  for (const [index, text] of itemsOf(draft.network?.floatingIpCidrs)) {
    const path: Path = ["network", "floatingIpCidrs", index];
    const field = names.field(path);
    const parsed = parseCidr(text);
    if (!parsed.ok) {
      errors.push({ path, message: `${field}: ${parsed.problem}`, hint: "write the range as address/prefix, e.g. 203.0.113.0/24" });
      continue;
    }
    const range = { index, text, cidr: parsed.value };
    errors.push(...rangeProblems(range, ranges, management, names).map(({ message, hint }) => ({ path, message: `${field} ${message}`, hint })));
    ranges.push(range);
  }
  return errors;
};
