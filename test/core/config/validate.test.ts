import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import fc from "fast-check";
import { analyzeYamlDraft, renderNodeYaml, type ValidationContext, validateDraft } from "../../../core/config/index.ts";
import { toSnake } from "../../../core/config/paths.ts";
import { mergePatch } from "../../../core/draft/service.ts";
import { plausibleDraft, wellShapedDraft } from "./arbitraries.ts";
import { assertErrors, type Expected } from "./expect-errors.ts";
import { BUILT_IN_CTX, CTX, HA_INIT, HA_JOIN, HOST, JOIN_TOKEN, SINGLE_NODE } from "./fixtures.ts";

interface Case {
  name: string;
  draft: unknown;
  ctx?: ValidationContext;
  expected: Expected[];
}

const single = (changes: unknown) => mergePatch(SINGLE_NODE, changes);
const haInit = (changes: unknown) => mergePatch(HA_INIT, changes);
const haJoin = (changes: unknown) => mergePatch(HA_JOIN, changes);
const network = (changes: Record<string, unknown>) => single({ network: changes });

function keyLine(type: string, blobType: string): string {
  const name = Buffer.from(blobType);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(name.length);
  return `${type} ${Buffer.concat([length, name, Buffer.alloc(36, 7)]).toString("base64")} me@laptop`;
}

const CASES: Case[] = [
  { name: "valid single-node draft", draft: SINGLE_NODE, expected: [] },
  { name: "valid hyperconverged-init draft", draft: HA_INIT, expected: [] },
  { name: "valid hyperconverged-join draft", draft: HA_JOIN, expected: [] },

  // Shape
  { name: "config that is a list", draft: [1, 2], expected: [["", /config must be an object .* not a list/]] },
  { name: "config that is null", draft: null, expected: [["", /config must be an object .* not null/]] },
  { name: "hostname of the wrong type", draft: single({ hostname: 42 }), expected: [["hostname", /hostname must be a string, not the number 42/]] },
  { name: "network that is a string", draft: single({ network: "eno1" }), expected: [["network", /network must be an object, not a string/]] },
  { name: "dns that is a single string", draft: network({ dns: "10.20.0.2" }), expected: [["network.dns", /must be a list, not a string/]] },
  { name: "dns item of the wrong type", draft: network({ dns: ["10.20.0.2", 5] }), expected: [["network.dns[1]", /must be a string, not the number 5/]] },
  { name: "unknown top-level key near a known one", draft: single({ hostnme: "x" }), expected: [["hostnme", /hostnme is not a known key/]] },
  { name: "unknown nested key near a known one", draft: network({ gatway: "10.20.0.1" }), expected: [["network.gatway", /network.gatway is not a known key/]] },
  { name: "snake_case key in a structured draft", draft: network({ floating_ip_cidrs: [] }), expected: [["network.floating_ip_cidrs", /not a known key/]] },
  { name: "unknown mode", draft: single({ mode: "ha" }), expected: [["mode", /mode "ha" is not one of single-node, hyperconverged-init/]] },
  { name: "too many DNS servers", draft: network({ dns: Array(9).fill("10.20.0.2") }), expected: [["network.dns", /has 9 entries; at most 8/]] },
  { name: "hostname over the length bound", draft: single({ hostname: "a".repeat(300) }), expected: [["hostname", /too long: 300 characters, at most 253/]] },
  { name: "empty gateway", draft: network({ gateway: "" }), expected: [["network.gateway", /network.gateway is empty/]] },

  // Required per mode
  {
    name: "empty draft",
    draft: {},
    expected: [
      ["mode", /mode is required/],
      ["hostname", /hostname is required/],
      ["network.interface", /network.interface is required/],
      ["network.address", /network.address is required/],
      ["network.gateway", /network.gateway is required/],
      ["admin", /set admin.sshAuthorizedKeys .* or admin.passwordHash/],
    ],
  },
  { name: "mode absent", draft: single({ mode: null }), expected: [["mode", /mode is required/]] },
  {
    name: "hyperconverged-init without vip, disks or cluster name",
    draft: haInit({ network: { vip: null }, storage: null, cluster: null }),
    expected: [
      ["network.vip", /network.vip is required for mode hyperconverged-init/],
      ["storage.osdDevices", /needs at least one disk for mode hyperconverged-init/],
      ["cluster.name", /cluster.name is required for mode hyperconverged-init/],
    ],
  },
  {
    name: "hyperconverged-join without join address, token or disks",
    draft: haJoin({ storage: { osdDevices: [] }, cluster: null }),
    expected: [
      ["cluster.joinAddress", /cluster.joinAddress is required for mode hyperconverged-join/],
      ["cluster.joinToken", /cluster.joinToken is required for mode hyperconverged-join/],
      ["storage.osdDevices", /needs at least one disk for mode hyperconverged-join/],
    ],
  },
  { name: "no way to log in", draft: single({ admin: { sshAuthorizedKeys: [], passwordHash: null } }), expected: [["admin", /admin needs a way to log in/]] },

  // Hostname (RFC 1123)
  { name: "hostname with uppercase", draft: single({ hostname: "Node-01" }), expected: [["hostname", /uppercase letters; write it in lowercase \("node-01"\)/]] },
  { name: "hostname with underscore", draft: single({ hostname: "node_01" }), expected: [["hostname", /contains "_"/]] },
  { name: "hostname label starting with -", draft: single({ hostname: "-node" }), expected: [["hostname", /label "-node" starts with "-"/]] },
  { name: "hostname label over 63", draft: single({ hostname: `${"a".repeat(64)}.example` }), expected: [["hostname", /is 64 characters long; a label has at most 63/]] },
  { name: "hostname with an empty label", draft: single({ hostname: "node..example" }), expected: [["hostname", /empty label/]] },

  // Timezone
  { name: "misspelt time zone", draft: single({ timezone: "Europe/Pari" }), expected: [["timezone", /"Europe\/Pari" is not an IANA time zone name/]] },
  { name: "time zone in the wrong case", draft: single({ timezone: "europe/berlin" }), expected: [["timezone", /must be written Europe\/Berlin/]] },
  { name: "current IANA name ICU lists under an old one", draft: single({ timezone: "Asia/Kolkata" }), expected: [] },

  // Management address, gateway, vip
  { name: "address without prefix", draft: network({ address: "10.20.0.11" }), expected: [["network.address", /10.20.0.11 has no prefix length/]] },
  { name: "address prefix out of range", draft: network({ address: "10.20.0.11/33" }), expected: [["network.address", /prefix 33 is out of range for IPv4 \(0–32\)/]] },
  { name: "address octet over 255", draft: network({ address: "10.20.0.300/24" }), expected: [["network.address", /10.20.0.300 is not an IP address: 300 is more than 255/]] },
  { name: "address is the network address", draft: network({ address: "10.20.0.0/24" }), expected: [["network.address", /is the network address of 10.20.0.0\/24/]] },
  { name: "address is the broadcast address", draft: network({ address: "10.20.0.255/24" }), expected: [["network.address", /is the broadcast address of 10.20.0.0\/24/]] },
  { name: "IPv6 prefix out of range", draft: network({ address: "2001:db8::11/129", gateway: "fe80::1", dns: null, ntp: null, floatingIpCidrs: null }), expected: [["network.address", /prefix 129 is out of range for IPv6 \(0–128\)/]] },
  { name: "gateway outside the management subnet", draft: network({ gateway: "10.30.0.1" }), expected: [["network.gateway", /10.30.0.1 is outside the management subnet 10.20.0.0\/24 \(from network.address\)/]] },
  { name: "gateway is the node's own address", draft: network({ gateway: "10.20.0.11" }), expected: [["network.gateway", /is the node's own address/]] },
  { name: "gateway is not an IP", draft: network({ gateway: "10.20.0.256" }), expected: [["network.gateway", /10.20.0.256 is not an IP address: 256 is more than 255/]] },
  { name: "gateway written with a prefix", draft: network({ gateway: "10.20.0.1/24" }), expected: [["network.gateway", /has a prefix length: write the address alone \(10.20.0.1\)/]] },
  { name: "gateway of the other IP version", draft: network({ gateway: "2001:db8::1" }), expected: [["network.gateway", /is IPv6, but the node's address \(network.address\) is IPv4/]] },
  { name: "vip equal to the gateway", draft: haInit({ network: { vip: "10.20.0.1" } }), expected: [["network.vip", /is the gateway's address \(network.gateway\)/]] },
  { name: "vip outside the management subnet", draft: haInit({ network: { vip: "192.168.1.10" } }), expected: [["network.vip", /outside the management subnet 10.20.0.0\/24/]] },
  {
    name: "IPv6 management network with a link-local gateway",
    draft: network({ address: "2001:db8:0:1::11/64", gateway: "fe80::1", dns: ["2001:db8:0:1::53"], ntp: ["ntp.example.net"], floatingIpCidrs: ["2001:db8:ff::/48"] }),
    expected: [],
  },

  // DNS, NTP
  { name: "dns entry that is not an IP", draft: network({ dns: ["10.20.0.2", "dns.example.net"] }), expected: [["network.dns[1]", /"?dns.example.net"? is not an IP address/]] },
  { name: "dns server of the other IP version", draft: network({ dns: ["2001:db8::53"] }), expected: [["network.dns[0]", /2001:db8::53 is IPv6, but the node's address .* is IPv4/]] },
  { name: "ntp server that is neither IP nor hostname", draft: network({ ntp: ["ntp_server"] }), expected: [["network.ntp[0]", /neither an IP address nor a valid hostname: it contains "_"/]] },

  // Floating IP ranges
  {
    name: "floating ranges overlapping each other",
    draft: network({ floatingIpCidrs: ["203.0.113.0/24", "198.51.100.0/24", "203.0.113.128/25"] }),
    expected: [["network.floatingIpCidrs[2]", /203.0.113.128\/25 overlaps network.floatingIpCidrs\[0\] \(203.0.113.0\/24\)/]],
  },
  { name: "floating range overlapping the management subnet", draft: network({ floatingIpCidrs: ["10.20.0.128/25"] }), expected: [["network.floatingIpCidrs[0]", /overlaps the management subnet 10.20.0.0\/24/]] },
  { name: "floating range with host bits", draft: network({ floatingIpCidrs: ["203.0.113.5/24"] }), expected: [["network.floatingIpCidrs[0]", /has host bits set: the range starts at 203.0.113.0\/24/]] },
  { name: "floating range that is not a CIDR", draft: network({ floatingIpCidrs: ["203.0.113.0/24", "203.0.113.0-255"] }), expected: [["network.floatingIpCidrs[1]", /has no prefix length/]] },
  { name: "floating range of the other IP version", draft: network({ floatingIpCidrs: ["2001:db8:ff::/48"] }), expected: [["network.floatingIpCidrs[0]", /is IPv6, but the node's address .* is IPv4/]] },

  // Host facts
  { name: "interface the host does not have", draft: network({ interface: "eno3" }), expected: [["network.interface", /eno3 is not a network interface on this host/]] },
  { name: "interface whose link is down", draft: network({ interface: "eno2" }), expected: [] },
  { name: "osd device the host does not have", draft: haInit({ storage: { osdDevices: ["/dev/sdx"] } }), expected: [["storage.osdDevices[0]", /\/dev\/sdx is not a disk on this host/]] },
  { name: "osd device given by name", draft: haInit({ storage: { osdDevices: ["sdb"] } }), expected: [["storage.osdDevices[0]", /sdb is a disk name, not a device path/]] },
  { name: "osd device in use", draft: haInit({ storage: { osdDevices: ["/dev/sda"] } }), expected: [["storage.osdDevices[0]", /\/dev\/sda is in use \(mounted at \/\)/]] },
  { name: "osd device listed twice", draft: haInit({ storage: { osdDevices: ["/dev/sdb", "/dev/sdc", "/dev/sdb"] } }), expected: [["storage.osdDevices[2]", /\/dev\/sdb is listed twice \(also storage.osdDevices\[0\]\)/]] },
  { name: "osd device that is a partition", draft: haInit({ storage: { osdDevices: ["/dev/sdb1"] } }), expected: [["storage.osdDevices[0]", /\/dev\/sdb1 is a partition; Ceph takes whole disks/]] },

  // Cluster
  { name: "cluster name with an escape sequence", draft: haInit({ cluster: { name: "rack\u001b[2Ja" } }), expected: [["cluster.name", /^cluster.name holds U\+001B \(a control, format or invisible character\) at character 5: a cluster's name is shown on terminals, in logs and by every node that joins; use printable characters$/]] },
  { name: "cluster name with a bidi override", draft: haInit({ cluster: { name: "rack-\u202ea" } }), expected: [["cluster.name", /holds U\+202E \(a control, format or invisible character\) at character 6/]] },
  { name: "cluster name with a line break", draft: haInit({ cluster: { name: "rack\na" } }), expected: [["cluster.name", /holds U\+000A/]] },
  { name: "cluster name with blanks around it", draft: haInit({ cluster: { name: " rack-a " } }), expected: [["cluster.name", /^cluster.name begins or ends with a blank: a join compares names exactly; write it without$/]] },
  { name: "a join's cluster name as the cluster has it, blanks and controls included (the founding node's name is judged)", draft: haJoin({ cluster: { name: " rack\u001ba " } }), expected: [] },
  { name: "cluster name of words and capitals", draft: haInit({ cluster: { name: "Rack A (Paris) · 2é" } }), expected: [] },
  // What printable() writes out is what is refused (one list): an invisible Hangul filler too, and an emoji's joiner is kept.
  { name: "cluster name with an invisible filler", draft: haInit({ cluster: { name: "rack\u3164a" } }), expected: [["cluster.name", /holds U\+3164 \(a control, format or invisible character\) at character 5/]] },
  { name: "cluster name with an emoji joined", draft: haInit({ cluster: { name: "rack \u{1f469}\u200d\u{1f692}" } }), expected: [] },
  { name: "join address with a bad port", draft: haJoin({ cluster: { joinAddress: "10.20.0.10:99999" } }), expected: [["cluster.joinAddress", /port "99999" is not a port number/]] },
  { name: "join address as a hostname", draft: haJoin({ cluster: { joinAddress: "ctl-1.example.net" } }), expected: [] },
  { name: "join address as bracketed IPv6 with port", draft: haJoin({ cluster: { joinAddress: "[2001:db8::10]:9443" } }), expected: [] },
  // The join check reaches it through a URL: an xn-- label that is not punycode passed here, then the check threw "Invalid URL" (a 500, an attempt failed with no field named).
  { name: "join address with an xn-- label that is not punycode", draft: haJoin({ cluster: { joinAddress: "xn--x.example.net" } }), expected: [["cluster.joinAddress", /"xn--x.example.net" is not a host name a URL can carry/]] },
  // A URL reads a host whose last label is a number as an IPv4 address: the join check could not reach it; it was said to be a punycode problem.
  { name: "join address ending in a number", draft: haJoin({ cluster: { joinAddress: "ctl.10:9443" } }), expected: [["cluster.joinAddress", /^cluster.joinAddress: "ctl.10" ends in a number \(10\), so a URL reads it as an IPv4 address, which it is not; write the name as DNS knows it, or an IP address$/]] },
  { name: "join address ending in a hex number", draft: haJoin({ cluster: { joinAddress: "rack-a.0x1f" } }), expected: [["cluster.joinAddress", /ends in a number \(0x1f\)/]] },
  { name: "join address is the node itself", draft: haJoin({ cluster: { joinAddress: "10.20.0.11" } }), expected: [["cluster.joinAddress", /10.20.0.11 is this node's own address/]] },
  // The join check reaches https://{joinAddress}, whose URL parser reads these as 10.20.0.11, the node itself: each is refused, with the address it is.
  { name: "join address as hex", draft: haJoin({ cluster: { joinAddress: "0x0a.20.0.11" } }), expected: [["cluster.joinAddress", /^cluster.joinAddress: 0x0a.20.0.11 is not an IP address: .* did you mean 10.20.0.11\?$/]] },
  { name: "join address as hex with a port", draft: haJoin({ cluster: { joinAddress: "0x0a.0x14.0.0xb:9443" } }), expected: [["cluster.joinAddress", /did you mean 10.20.0.11\?$/]] },
  { name: "join address as one number", draft: haJoin({ cluster: { joinAddress: "169082891" } }), expected: [["cluster.joinAddress", /did you mean 10.20.0.11\?$/]] },
  { name: "join address in octal", draft: haJoin({ cluster: { joinAddress: "012.024.0.013" } }), expected: [["cluster.joinAddress", /as 10.20.0.11\): did you mean 10.20.0.11, or 12.24.0.13\?$/]] },
  { name: "join address shortened", draft: haJoin({ cluster: { joinAddress: "10.20.11" } }), expected: [["cluster.joinAddress", /did you mean 10.20.0.11\?$/]] },
  { name: "join address shortened loopback", draft: haJoin({ cluster: { joinAddress: "0x7f.1:8443" } }), expected: [["cluster.joinAddress", /did you mean 127.0.0.1\?$/]] },
  { name: "join address with a trailing dot", draft: haJoin({ cluster: { joinAddress: "10.20.0.11." } }), expected: [["cluster.joinAddress", /did you mean 10.20.0.11\?$/]] },
  { name: "join address in full-width digits", draft: haJoin({ cluster: { joinAddress: "\uff11\uff10.20.0.11" } }), expected: [["cluster.joinAddress", /did you mean 10.20.0.11\?$/]] },
  { name: "join address IPv4-mapped, bracketed", draft: haJoin({ cluster: { joinAddress: "[::ffff:10.20.0.11]:8443" } }), expected: [["cluster.joinAddress", /IPv4-mapped\): did you mean 10.20.0.11\?$/]] },
  { name: "join address IPv4-mapped in hex", draft: haJoin({ cluster: { joinAddress: "::ffff:a14:b" } }), expected: [["cluster.joinAddress", /IPv4-mapped\): did you mean 10.20.0.11\?$/]] },
  // As 0x or 0.0 (which read as 0.0.0.0) are: refused, with no address suggested.
  { name: "join address IPv4-mapped unspecified", draft: haJoin({ cluster: { joinAddress: "[::ffff:0.0.0.0]:8443" } }), expected: [["cluster.joinAddress", /^cluster.joinAddress: ::ffff:0.0.0.0 is an IPv4 address written as IPv6 \(IPv4-mapped\)$/]] },
  { name: "join address with a zone", draft: haJoin({ cluster: { joinAddress: "[fe80::1%25eno1]:8443" } }), expected: [["cluster.joinAddress", /has a zone index/]] },
  // Without a zone (which a join address cannot carry) the kernel cannot say which link fe80:: is on: the join check could never connect.
  { name: "join address IPv6 link-local", draft: haJoin({ cluster: { joinAddress: "[fe80::10]:8443" } }), expected: [["cluster.joinAddress", /fe80::10 is an IPv6 link-local address \(fe80::\/10\), which needs a zone \(%eth0\) that a join address cannot carry/]] },
  { name: "join address is the node's own hostname", draft: haJoin({ cluster: { joinAddress: "node-01:8443" } }), expected: [["cluster.joinAddress", /^cluster.joinAddress: node-01 is this node's own hostname \(hostname\); point it at a node already in the cluster$/]] },
  {
    // The installer runs on the node: an address the host has now (a DHCP lease before the install) is this node too.
    name: "join address is an address the host has now",
    draft: haJoin({ cluster: { joinAddress: "[2001:db8:7::0005]:8443" } }),
    ctx: { ...CTX, host: { ...HOST, interfaces: [...HOST.interfaces, { name: "eno3", mac: "3c:ec:ef:00:00:03", up: true, addresses: ["192.168.7.5/24", "2001:db8:7::5/64"] }] } },
    expected: [["cluster.joinAddress", /^cluster.joinAddress: 2001:db8:7::0005 is an address this host has now \(eno3 2001:db8:7::5\/64\); point it at a node already in the cluster$/]],
  },
  { name: "join address is the unspecified address", draft: haJoin({ cluster: { joinAddress: "0.0.0.0:8443" } }), expected: [["cluster.joinAddress", /0.0.0.0 is the unspecified address, which reaches this node itself/]] },
  { name: "join address is the unspecified IPv6 address", draft: haJoin({ cluster: { joinAddress: "[::]" } }), expected: [["cluster.joinAddress", /:: is the unspecified address, which reaches this node itself/]] },
  {
    name: "join address is the node itself in IPv6 spelt with leading zeros",
    draft: haJoin({ network: { address: "2001:db8::11/64", gateway: "2001:db8::1", dns: ["2001:db8::2"], ntp: ["ntp.example.net"], floatingIpCidrs: ["2001:db8:ff::/48"] }, cluster: { joinAddress: "[2001:0db8:0:0::0011]:9443" } }),
    expected: [["cluster.joinAddress", /2001:0db8:0:0::0011 is this node's own address/]],
  },
  { name: "ntp server as hex", draft: network({ ntp: ["0x0a.20.0.3"] }), expected: [["network.ntp[0]", /did you mean 10.20.0.3\?$/]] },
  { name: "gateway in octal", draft: network({ gateway: "012.20.0.1" }), expected: [["network.gateway", /did you mean 10.20.0.1, or 12.20.0.1\?$/]] },
  { name: "vip IPv4-mapped", draft: haInit({ network: { vip: "::ffff:10.20.0.10" } }), expected: [["network.vip", /did you mean 10.20.0.10\?$/]] },

  // Join token (SPEC §6): its shape, never quoted
  { name: "join token of another shape", draft: haJoin({ cluster: { joinToken: "stj_4f9c2a61e0b7" } }), expected: [["cluster.joinToken", /^cluster\.joinToken is not a join token \(expected STRATUM1:<fingerprint>:<secret>\): it does not start with STRATUM1:$/]] },
  { name: "join token with a short fingerprint", draft: haJoin({ cluster: { joinToken: JOIN_TOKEN.replace("3f3f", "3f") } }), expected: [["cluster.joinToken", /its fingerprint is not 64 lowercase hex digits/]] },
  { name: "join token with a short secret", draft: haJoin({ cluster: { joinToken: `STRATUM1:${"ab".repeat(32)}:short` } }), expected: [["cluster.joinToken", /its secret is shorter than 22 base64url characters \(128 bits\)/]] },
  { name: "join with a bare secret", draft: haJoin({ cluster: { joinToken: JOIN_TOKEN.split(":")[2] } }), expected: [["cluster.joinToken", /bare secret, which only an ha-init draft carries/]] },
  { name: "ha-init with a bare secret", draft: haInit({ cluster: { joinToken: JOIN_TOKEN.split(":")[2] } }), expected: [] },
  { name: "ha-init with a whole token", draft: haInit({ cluster: { joinToken: JOIN_TOKEN } }), expected: [["cluster.joinToken", /an ha-init node founds the cluster and makes its token itself/]] },
  { name: "ha-init with a secret too short", draft: haInit({ cluster: { joinToken: "hunter2" } }), expected: [["cluster.joinToken", /is not a secret: the secret is shorter than 22/]] },

  // Admin
  { name: "ssh key that is not a key line", draft: single({ admin: { sshAuthorizedKeys: ["hello world"] } }), expected: [["admin.sshAuthorizedKeys[0]", /does not start with an SSH key type/]] },
  { name: "ssh private key", draft: single({ admin: { sshAuthorizedKeys: ["-----BEGIN OPENSSH PRIVATE KEY-----"] } }), expected: [["admin.sshAuthorizedKeys[0]", /is a private key/]] },
  { name: "ssh key whose data is another type", draft: single({ admin: { sshAuthorizedKeys: [keyLine("ssh-rsa", "ssh-ed25519")] } }), expected: [["admin.sshAuthorizedKeys[0]", /says ssh-rsa, but its key data holds a ssh-ed25519 key/]] },
  { name: "ssh key with broken base64", draft: single({ admin: { sshAuthorizedKeys: ["ssh-ed25519 AAAA#C3Nz"] } }), expected: [["admin.sshAuthorizedKeys[0]", /not valid base64/]] },
  { name: "plain password instead of a hash", draft: single({ admin: { passwordHash: "hunter2" } }), expected: [["admin.passwordHash", /not a crypt hash; it looks like a plain password/]] },
  { name: "MD5 crypt hash", draft: single({ admin: { passwordHash: "$1$salt$abcdefghijklmnopqrstuv" } }), expected: [["admin.passwordHash", /MD5 crypt hash \(\$1\$\), which is too weak/]] },
  { name: "truncated SHA-512 crypt hash", draft: single({ admin: { passwordHash: "$6$salt$abc" } }), expected: [["admin.passwordHash", /looks like a SHA-512 crypt \(\$6\$\) hash but is malformed/]] },
  { name: "yescrypt hash", draft: single({ admin: { passwordHash: `$y$j9T$saltsalt$${"b".repeat(43)}` } }), expected: [] },

  // Mode availability
  { name: "preview mode the release leaves disabled", draft: single({ mode: "disaggregated-control-plane" }), expected: [["mode", /disaggregated profile is a preview that this release leaves disabled/]] },
  {
    name: "mode whose profile the release does not ship",
    draft: HA_INIT,
    ctx: { ...CTX, release: { release: "2026.11.0", profiles: { "single-node": { enabled: true } } } },
    expected: [["mode", /mode hyperconverged-init is not available: release 2026.11.0 does not ship the hyperconverged profile/]],
  },
  {
    name: "mode the built-in release model does not ship",
    draft: HA_INIT,
    ctx: { ...BUILT_IN_CTX, release: { release: null, profiles: { "single-node": { enabled: true } } } },
    expected: [["mode", /the built-in release model does not ship the hyperconverged profile/]],
  },
  {
    name: "hyperconverged on a host without an unused disk",
    draft: haInit({ storage: { osdDevices: ["/dev/sda"] } }),
    ctx: { ...CTX, host: { ...HOST, disks: HOST.disks.filter((d) => d.inUse) } },
    expected: [
      ["mode", /hyperconverged needs at least one unused disk for Ceph; this host has none/],
      ["storage.osdDevices[0]", /\/dev\/sda is in use \(mounted at \/\)/],
    ],
  },

  // A wrong type is reported once, not again by the rules that need the value
  { name: "gateway of the wrong type is not also 'required'", draft: network({ gateway: ["10.20.0.1"] }), expected: [["network.gateway", /must be a string, not a list/]] },
  { name: "unknown mode does not also ask for mode fields", draft: haInit({ mode: 7, network: { vip: null } }), expected: [["mode", /mode 7 is not one of/]] },
];

describe("validateDraft", () => {
  for (const { name, draft, ctx, expected } of CASES) {
    it(name, () => assertErrors(validateDraft(draft, ctx ?? CTX), expected));
  }

  it("suggests the nearest known key, across levels too", () => {
    const [typo] = validateDraft(network({ gatway: "10.20.0.1" }), CTX);
    assert.equal(typo?.hint, "did you mean network.gateway?");
    const [misplaced] = validateDraft(single({ gateway: "10.20.0.1" }), CTX);
    assert.equal(misplaced?.hint, "did you mean network.gateway?");
    const [snake] = validateDraft(network({ floating_ip_cidrs: [] }), CTX);
    assert.equal(snake?.hint, "did you mean network.floatingIpCidrs?");
    const [far] = validateDraft(network({ zzzz: 1 }), CTX);
    assert.match(far?.hint ?? "", /^known keys in network: interface, address, gateway/);
  });

  it("hints at the fix", () => {
    const hints = (draft: unknown) => validateDraft(draft, CTX).map((e) => e.hint);
    assert.deepEqual(hints(single({ mode: "ha-init" })), ["did you mean hyperconverged-init?"]);
    assert.deepEqual(hints(single({ hostname: 42 })), ['put it in quotes: "42"']);
    assert.deepEqual(hints(haInit({ storage: { osdDevices: ["sdb"] } })), ["write /dev/sdb"]);
    assert.deepEqual(hints(network({ interface: "eno3" })), ["interfaces on this host: eno1 (10.20.0.11/24), eno2"]);
    assert.deepEqual(hints(network({ floatingIpCidrs: ["203.0.113.5/24"] })), ["write 203.0.113.0/24"]);
    assert.deepEqual(hints(single({ timezone: "Europe/Pari" })), ["did you mean Europe/Paris?"]);
  });

  it("takes a zone the system's tz database names that Node's ICU does not know (Debian 12's nodejs: ICU 72, tz 2022e)", () => {
    // America/Ciudad_Juarez (tz 2022g) was refused there, valid on every other Node; TZDIR is the folder glibc reads.
    const dir = mkdtempSync(join(tmpdir(), "tzdir-"));
    writeFileSync(join(dir, "tzdata.zi"), "# version 2099a\nZ Test/Only_In_Tzdata 1 - X\nL Test/Only_In_Tzdata Test/Its_Old_Name\nR X 1 2 - Ja 1 0 0 -\n");
    const before = process.env.TZDIR;
    process.env.TZDIR = dir;
    try {
      assert.deepEqual(validateDraft(single({ timezone: "Test/Only_In_Tzdata" }), CTX), []);
      assert.deepEqual(validateDraft(single({ timezone: "Test/Its_Old_Name" }), CTX), []);
      assert.match(validateDraft(single({ timezone: "Test/Nowhere" }), CTX)[0]?.message ?? "", /is not an IANA time zone name/);
      // The rule's lines (R) and the header name no zone.
      assert.match(validateDraft(single({ timezone: "X" }), CTX)[0]?.message ?? "", /is not an IANA time zone name/);
      process.env.TZDIR = join(dir, "missing");
      assert.match(validateDraft(single({ timezone: "Test/Only_In_Tzdata" }), CTX)[0]?.message ?? "", /is not an IANA time zone name/);
    } finally {
      if (before === undefined) delete process.env.TZDIR;
      else process.env.TZDIR = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads no tzdata.zi that is not a plain file of a tz database's size: a FIFO there does not hang validation, a huge file is not read", () => {
    const dir = mkdtempSync(join(tmpdir(), "tzdir-"));
    try {
      // A FIFO no one writes: reading it would block the service's one thread for good.
      execFileSync("mkfifo", [join(dir, "tzdata.zi")]);
      const probe = `import { validateDraft } from ${JSON.stringify(new URL("../../../core/config/index.ts", import.meta.url).href)};
        import { CTX, SINGLE_NODE } from ${JSON.stringify(new URL("./fixtures.ts", import.meta.url).href)};
        process.stdout.write(JSON.stringify(validateDraft({ ...SINGLE_NODE, timezone: "Test/Only_In_Tzdata" }, CTX).map((e) => e.message)));`;
      const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", probe], { env: { ...process.env, TZDIR: dir }, encoding: "utf8", timeout: 30_000 });
      assert.equal(run.signal, null, "validation hung reading the FIFO");
      assert.equal(run.status, 0, run.stderr);
      assert.match(String(JSON.parse(run.stdout)), /is not an IANA time zone name/);
      // 16 MiB where a tz database is ≈ 110 KB: not read, its names not taken.
      const big = join(dir, "big");
      mkdirSync(big);
      writeFileSync(join(big, "tzdata.zi"), `${"# padding\n".repeat(1_700_000)}Z Test/Only_In_Tzdata 1 - X\n`);
      const before = process.env.TZDIR;
      process.env.TZDIR = big;
      try {
        assert.match(validateDraft(single({ timezone: "Test/Only_In_Tzdata" }), CTX)[0]?.message ?? "", /is not an IANA time zone name/);
      } finally {
        if (before === undefined) delete process.env.TZDIR;
        else process.env.TZDIR = before;
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("lists errors in field order", () => {
    const draft = single({ admin: { passwordHash: "x" }, hostname: "A_B", network: { dns: [1, "x"], gatway: "y", interface: "eno9" } });
    assert.deepEqual(
      validateDraft(draft, CTX).map((e) => e.field),
      ["hostname", "network.interface", "network.dns[0]", "network.dns[1]", "network.gatway", "admin.passwordHash"],
    );
  });

  it("names every unknown key up to a bound, then sums up the rest", () => {
    const keys = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i]));
    const errors = validateDraft(network(keys), CTX);
    assert.equal(errors.filter((e) => e.field.startsWith("network.k")).length, 50);
    assert.ok(errors.some((e) => e.field === "network" && e.message === "network has 950 more unknown keys"));
  });

  it("never puts a secret in a message", () => {
    const token = "tok-SECRET-123";
    const hash = "plain-SECRET-password";
    const errors = validateDraft(haJoin({ cluster: { joinToken: token, joinAdress: token }, admin: { passwordHash: hash } }), CTX);
    assert.ok(errors.length > 0);
    for (const error of errors) assert.doesNotMatch(JSON.stringify(error), /SECRET/);
  });

  it("never throws, whatever the JSON", () => {
    const anyDraft = fc.oneof(fc.jsonValue(), fc.anything(), wellShapedDraft, plausibleDraft);
    fc.assert(
      fc.property(anyDraft, (input) => {
        for (const error of validateDraft(input, CTX)) {
          assert.equal(typeof error.field, "string");
          assert.ok(error.message.length > 0);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("finds the same problems in a draft and in the node.yaml it renders to", () => {
    const nodeYamlField = (field: string) => field.replace(/[A-Za-z]+/g, toSnake);
    fc.assert(
      fc.property(fc.oneof(plausibleDraft, wellShapedDraft), (draft) => {
        const structured = validateDraft(draft, CTX).map((e) => nodeYamlField(e.field)).sort();
        const yaml = analyzeYamlDraft(renderNodeYaml(draft), CTX).errors.map((e) => e.field).sort();
        assert.deepEqual(yaml, structured);
      }),
      { numRuns: 300 },
    );
  });
});

describe("a malformed join token is never quoted", () => {
  for (const [mode, token] of [["join", "STRATUM1:zz:S3CRET-never-shown"], ["join", "S3CRET-never-shown-but-long-enough-x"], ["init", "S3CRET!never"], ["init", JOIN_TOKEN]] as const) {
    it(`${mode}: ${token.length} characters`, () => {
      const errors = validateDraft(mode === "join" ? haJoin({ cluster: { joinToken: token } }) : haInit({ cluster: { joinToken: token } }), CTX);
      const error = errors.find((e) => e.field === "cluster.joinToken");
      assert.ok(error, JSON.stringify(errors));
      const said = `${error.message} ${error.hint ?? ""}`;
      for (const part of token.split(":").filter((p) => p.length >= 6 && p !== "STRATUM1")) assert.ok(!said.includes(part), `${said} quotes ${part}`);
      assert.ok(!said.includes("S3CRET"), said);
    });
  }
});
