import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isIP } from "node:net";
import { cidrContains, cidrsOverlap, formatIp, hostnameProblem, ipFamily, parseAddress, parseCidr, parseIp, subnetText } from "../../../core/config/net.ts";

function cidr(text: string) {
  const parsed = parseCidr(text);
  assert.ok(parsed.ok, text);
  return parsed.value;
}

function ip(text: string) {
  const parsed = parseIp(text);
  assert.ok(parsed.ok, text);
  return parsed.value;
}

/** What parseIp says is wrong with `text`; undefined for an address. */
const problem = (text: string) => {
  const parsed = parseIp(text);
  return parsed.ok ? undefined : parsed.problem;
};

describe("parseIp / formatIp", () => {
  it("reads IPv4 and IPv6, and writes them back in canonical form", () => {
    assert.deepEqual(ip("10.20.0.11"), { family: 4, value: 0x0a14000bn });
    assert.equal(ip("2001:db8::1").value, 0x20010db8000000000000000000000001n);
    assert.equal(ip("2001:0db8:0000::0001").value, ip("2001:db8::1").value);
    for (const text of ["10.20.0.11", "0.0.0.0", "2001:db8::1", "::", "fe80::1:0:0:2", "1:2:3:4:5:6:7:8", "2001:db8:0:1::"]) {
      assert.equal(formatIp(ip(text)), text);
    }
  });

  it("says what is wrong", () => {
    assert.equal(problem("10.0.0.300"), "10.0.0.300 is not an IP address: 300 is more than 255");
    assert.equal(problem("10.0.1"), "10.0.1 is not an IP address: an IPv4 address has 4 numbers, this has 3; a URL or resolver reads it as 10.0.0.1: did you mean 10.0.0.1?");
    assert.equal(problem("010.0.0.1"), "010.0.0.1 is not an IP address: 010 has a leading zero, which a URL or resolver reads as octal (as 8.0.0.1): did you mean 8.0.0.1, or 10.0.0.1?");
    assert.equal(problem("1.2.3.4.5"), "1.2.3.4.5 is not an IP address: an IPv4 address has 4 numbers, this has 5");
    assert.equal(problem("10.0.0.1/24"), "10.0.0.1/24 has a prefix length: write the address alone (10.0.0.1)");
    assert.equal(problem(" 10.0.0.1"), '" 10.0.0.1" has spaces around it');
    assert.equal(problem("fe80::1%eno1"), "fe80::1%eno1 has a zone index (%…), which is not allowed here");
    assert.equal(problem("gateway"), "gateway is not an IP address");
  });

  // A URL (the join check's https://host) and the resolver (inet_aton) read these as addresses: each is refused, with the address it reads as.
  it("refuses the numeric forms a URL or resolver reads as another address, naming it", () => {
    assert.equal(problem("012.20.0.11"), "012.20.0.11 is not an IP address: 012 has a leading zero, which a URL or resolver reads as octal (as 10.20.0.11): did you mean 10.20.0.11, or 12.20.0.11?");
    assert.equal(problem("10.20.0.011"), "10.20.0.011 is not an IP address: 011 has a leading zero, which a URL or resolver reads as octal (as 10.20.0.9): did you mean 10.20.0.9, or 10.20.0.11?");
    assert.equal(problem("0x0a.20.0.11"), "0x0a.20.0.11 is not an IP address: a URL or resolver reads it as 10.20.0.11 (hex, octal or shortened): did you mean 10.20.0.11?");
    assert.equal(problem("167772171"), "167772171 is not an IP address: an IPv4 address has 4 numbers, this has 1; a URL or resolver reads it as 10.0.0.11: did you mean 10.0.0.11?");
    assert.equal(problem("127.1"), "127.1 is not an IP address: an IPv4 address has 4 numbers, this has 2; a URL or resolver reads it as 127.0.0.1: did you mean 127.0.0.1?");
    assert.equal(problem("10.20.0.11."), "10.20.0.11. is not an IP address: a URL or resolver reads it as 10.20.0.11 (hex, octal or shortened): did you mean 10.20.0.11?");
    assert.equal(problem("::ffff:10.20.0.11"), "::ffff:10.20.0.11 is an IPv4 address written as IPv6 (IPv4-mapped): did you mean 10.20.0.11?");
    assert.equal(problem("0:0:0:0:0:FFFF:a14:b"), "0:0:0:0:0:FFFF:a14:b is an IPv4 address written as IPv6 (IPv4-mapped): did you mean 10.20.0.11?");
  });

  it("suggests no address when the numeric form reads as the unspecified address or the broadcast: those were never meant", () => {
    for (const text of ["0x", "0x.0x", "0x0", "0xffffffff", "255.0xffffff"]) assert.equal(problem(text), `${text} is not an IP address`);
    assert.equal(problem("0.0"), "0.0 is not an IP address: an IPv4 address has 4 numbers, this has 2");
    assert.equal(problem("0"), "0 is not an IP address: an IPv4 address has 4 numbers, this has 1");
    assert.equal(problem("4294967295"), "4294967295 is not an IP address: an IPv4 address has 4 numbers, this has 1");
    assert.equal(problem("00.0.0.0"), "00.0.0.0 is not an IP address: 00 has a leading zero");
    assert.equal(problem("255.255.255.0255"), "255.255.255.0255 is not an IP address: 0255 has a leading zero, which a URL or resolver reads as octal (as 255.255.255.173): did you mean 255.255.255.173?");
  });

  it("suggests no address for an IPv4-mapped form of the unspecified address or the broadcast, as for the other forms", () => {
    const cases = [
      { text: "::ffff:0.0.0.0", expected: "::ffff:0.0.0.0 is an IPv4 address written as IPv6 (IPv4-mapped)" },
      { text: "::FFFF:0:0", expected: "::FFFF:0:0 is an IPv4 address written as IPv6 (IPv4-mapped)" },
      { text: "0:0:0:0:0:ffff:0.0.0.0", expected: "0:0:0:0:0:ffff:0.0.0.0 is an IPv4 address written as IPv6 (IPv4-mapped)" },
      { text: "::ffff:255.255.255.255", expected: "::ffff:255.255.255.255 is an IPv4 address written as IPv6 (IPv4-mapped)" },
      { text: "::ffff:ffff:ffff", expected: "::ffff:ffff:ffff is an IPv4 address written as IPv6 (IPv4-mapped)" },
      // Any other mapped address is still suggested.
      { text: "::ffff:0.0.0.1", expected: "::ffff:0.0.0.1 is an IPv4 address written as IPv6 (IPv4-mapped): did you mean 0.0.0.1?" },
    ];
    for (const { text, expected } of cases) assert.equal(problem(text), expected, text);
    // In a CIDR, neither is suggested with its prefix either.
    const cidrProblem = parseCidr("::ffff:0.0.0.0/96");
    assert.deepEqual(cidrProblem, { ok: false, problem: "::ffff:0.0.0.0 is an IPv4 address written as IPv6 (IPv4-mapped)" });
  });
});

describe("ipFamily (inet_pton's answer, not isIP's patterns, whose first use compiles them)", () => {
  it("answers what net.isIP answers, tricky spellings included", () => {
    const texts = ["10.20.0.11", "0.0.0.0", "255.255.255.255", "::", "::1", "fe80::1", "2001:db8::", "1:2:3:4:5:6:7:8", "::ffff:10.1.2.3", "1:2:3:4:5:6:1.2.3.4", "FD00::ABCD",
      "localhost", "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.04", "0x1.2.3.4", "1..2.3", "1:2:3:4:5:6:7:8:9", "2001:db8:::1", "::g", "1::2::3", "12345::", ":1", "1:",
      "::ffff:01.2.3.4", "::ffff:1.2.3", "fe80::1%eth0", "fe80::1%2", "fe80::1%", "fe80::1%e_th0", "fe80::1%eth0%1", "fe80::1%a.b:c-d", "1.2.3.4%eth0", "::ffff:1.2.3.4%eth0", " 10.0.0.1", "10.0.0.1 ", "10.0.0.1\n", "10.0.0.0/8", "1.2.3.4:80", "[::1]", "\u0661.2.3.4"];
    for (const text of texts) assert.equal(ipFamily(text), isIP(text), JSON.stringify(text));
  });
});

describe("parseAddress (a well-formed address, as the kernel spells it)", () => {
  it("reads what parseIp reads, the same way, and refuses what it refuses", () => {
    const texts = ["10.20.0.11", "0.0.0.0", "255.255.255.255", "127.0.0.1", "::", "::1", "fe80::1", "fd00::2", "2001:db8::", "2001:db8:0:0:1::1",
      "0:0:0:0:0:0:0:1", "1:2:3:4:5:6:7:8", "64:ff9b::192.0.2.33", "FD00::ABCD",
      "localhost", "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1:2:3:4:5:6:7:8:9", "2001:db8:::1", "::g", "1::2::3", "fe80::1%eth0", " 10.0.0.1", "10.0.0.0/8"];
    for (const text of texts) {
      const parsed = parseIp(text);
      assert.deepEqual(parseAddress(text), parsed.ok ? parsed.value : undefined, JSON.stringify(text));
    }
  });
});

describe("parseCidr", () => {
  it("computes the subnet with prefix math", () => {
    assert.equal(subnetText(cidr("10.20.0.11/24")), "10.20.0.0/24");
    assert.equal(subnetText(cidr("10.20.0.11/0")), "0.0.0.0/0");
    assert.equal(subnetText(cidr("2001:db8:0:1::11/64")), "2001:db8:0:1::/64");
    assert.equal(subnetText(cidr("2001:db8::1/128")), "2001:db8::1/128");
    const { first, last } = cidr("192.168.1.77/30");
    assert.deepEqual([formatIp({ family: 4, value: first }), formatIp({ family: 4, value: last })], ["192.168.1.76", "192.168.1.79"]);
  });

  it("says what is wrong", () => {
    const problem = (text: string) => {
      const parsed = parseCidr(text);
      return parsed.ok ? undefined : parsed.problem;
    };
    assert.equal(problem("10.0.0.1/33"), "prefix 33 is out of range for IPv4 (0–32)");
    assert.equal(problem("2001:db8::/129"), "prefix 129 is out of range for IPv6 (0–128)");
    assert.equal(problem("10.0.0.1"), "10.0.0.1 has no prefix length (/24, /64, …)");
    assert.equal(problem("10.0.0.1/"), "10.0.0.1/ has nothing after the /: add the prefix length");
    assert.equal(problem("10.0.0.1/abc"), 'prefix "abc" is not a number');
    assert.equal(problem("10.0.0.300/24"), "10.0.0.300 is not an IP address: 300 is more than 255");
    // What a URL or resolver reads the address as is suggested with the prefix it was written with.
    assert.equal(problem("10.20.0.011/24"), "10.20.0.011 is not an IP address: 011 has a leading zero, which a URL or resolver reads as octal (as 10.20.0.9): did you mean 10.20.0.9/24, or 10.20.0.11/24?");
    assert.equal(problem("0x0a.20.0.11/24"), "0x0a.20.0.11 is not an IP address: a URL or resolver reads it as 10.20.0.11 (hex, octal or shortened): did you mean 10.20.0.11/24?");
    assert.equal(problem("::ffff:10.20.0.11/120"), "::ffff:10.20.0.11 is an IPv4 address written as IPv6 (IPv4-mapped): did you mean 10.20.0.11/24?");
  });

  it("tells containment and overlap, never across IP versions", () => {
    assert.ok(cidrContains(cidr("10.20.0.0/24"), ip("10.20.0.255")));
    assert.ok(!cidrContains(cidr("10.20.0.0/24"), ip("10.20.1.0")));
    assert.ok(cidrsOverlap(cidr("10.0.0.0/8"), cidr("10.20.0.0/24")));
    assert.ok(!cidrsOverlap(cidr("10.20.0.0/25"), cidr("10.20.0.128/25")));
    assert.ok(!cidrsOverlap(cidr("0.0.0.0/0"), cidr("::/0")));
  });
});

describe("hostnameProblem", () => {
  it("accepts RFC 1123 names", () => {
    for (const name of ["node-01", "n", "9node", "node-01.rack-a.example.net", `${"a".repeat(63)}.b`]) assert.equal(hostnameProblem(name), undefined, name);
  });

  it("names the rule a name breaks", () => {
    const cases: Array<[string, RegExp]> = [
      ["a".repeat(254), /is 254 characters long; a hostname has at most 253/],
      [".node", /empty label/],
      ["node.", /empty label/],
      ["node 01", /contains a space/],
      ["nöde", /contains "ö"/],
      ["Node", /uppercase letters; write it in lowercase \("node"\)/],
      ["10.20.0.11", /only digits and dots/],
      [`${"a".repeat(64)}.b`, /label "a{64}" is 64 characters long; a label has at most 63/],
      ["node-", /label "node-" ends with "-"/],
      ["a.-b", /label "-b" starts with "-"/],
    ];
    for (const [name, pattern] of cases) assert.match(hostnameProblem(name) ?? "", pattern, name);
  });
});
