"""The inventory read as a fleet plan (SPEC §10.1): each node's draft and every problem of the plan.

The same rules as the fleet's (cli/fleet/plan-*.ts), each problem naming its rule by the id the fleet
gives it; test/fixtures/plan-rules.json is their one table of cases, run against both. The inventory is
the plan: the hosts of group stratum are the nodes (a host's name is the node's name, its stratum_node
the rest), the group's stratum_cluster is the cluster section.
"""

import copy
import json
import re
from urllib.parse import urlsplit

from ansible_collections.stratum.installer.plugins.module_utils.net import parse_cidr, parse_host_or_ip, parse_ip, quoted, shown, split_host_port

# The rules this side applies; the table's rules with a notInAnsible reason are applied elsewhere.
RULES = (
    "unknown-key",
    "fleet-owned",
    "required",
    "type",
    "one-of",
    "installer-url",
    "fingerprint",
    "init-missing",
    "init-twice",
    "installer-unique",
    "address-unique",
    "subnet",
    "gateway",
    "floating-ranges",
    "vip",
    "join-address",
)

_ABSENT = object()
MODES = {"init": "hyperconverged-init", "join": "hyperconverged-join"}
CLUSTER_KEYS = {
    "name": "the cluster's name",
    "vip": "the cluster's virtual IP address",
    "joinAddress": None,
    "common": None,
}
NODE_KEYS = {
    "installer": "the node installer's URL, e.g. https://10.20.0.11:9443",
    "fingerprint": "the TLS SHA-256 its installer's banner printed",
    "code": "its install code: env:VAR, file:PATH or the code itself",
    "role": "init or join",
    "config": None,
}
FLEET_OWNED = {
    "mode": "the node's role decides it (init: hyperconverged-init, join: hyperconverged-join)",
    "hostname": "the inventory's host name is the node's hostname",
    "cluster": "stratum_cluster sets it (name, joinAddress; the join token comes from the init node)",
    "vip": "stratum_cluster.vip is every node's network.vip",
}
# Never shown in a message, whatever they hold: a problem with one names its type only.
SECRET_KEYS = ("code",)


class Problem:
    """One problem: its rule, where (a node's name and the path in its stratum_node, or a path from the plan's root: cluster.vip, nodes), what."""

    def __init__(self, rule, node, path, message, hint=None):
        self.rule, self.node, self.path, self.message, self.hint = rule, node, path, message, hint

    def place(self):
        if self.node is not None:
            return "%s: stratum_node%s" % (self.node, "." + self.path if self.path else "")
        if self.path == "nodes":
            return "stratum"
        return "stratum_" + self.path

    def __str__(self):
        return "%s: %s%s" % (self.place(), self.message, " (%s)" % self.hint if self.hint else "")


def merged(base, over):
    """Mappings merge key by key; a list or a value in over replaces the one in base."""
    if not isinstance(base, dict) or not isinstance(over, dict):
        return copy.deepcopy(over)
    out = copy.deepcopy(base)
    for key, value in over.items():
        out[key] = merged(out.get(key), value) if key in out else copy.deepcopy(value)
    return out


def dig(tree, keys):
    for key in keys:
        tree = tree.get(key) if isinstance(tree, dict) else None
    return tree


def is_text(value):
    """A string, or one stored with !vault: the filter runs on the controller, where a vaulted value is ansible's
    AnsibleVaultEncryptedUnicode, no str; ansible's own is_string knows it by its __ENCRYPTED__ mark."""
    return isinstance(value, str) or bool(getattr(value, "__ENCRYPTED__", False))


def plain(fields, keys):
    """The mapping with its vaulted `keys` as the str they hold (str() decrypts), for the rules to read."""
    return dict((key, str(value) if key in keys and is_text(value) and not isinstance(value, str) else value) for key, value in fields.items())


def describe(value, secret=False):
    """The value's kind, and the value too unless it may be a secret."""
    if value is None:
        return "empty"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if is_text(value):
        return "a string"
    if isinstance(value, bool):
        return "a boolean" if secret else "%s (a boolean)" % str(value).lower()
    if isinstance(value, (int, float)):
        return "a number" if secret else "%s (a number)" % value
    return "a %s" % type(value).__name__ if secret else "%s (a %s)" % (value, type(value).__name__)


def origin(url):
    """scheme://host:port, as a browser compares two URLs' sites: the same installer written two ways is one."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return url
    if not parts.scheme or not host:
        return url
    default = {"https": 443, "http": 80}.get(parts.scheme.lower())
    host = "[%s]" % host if ":" in host else host
    return "%s://%s%s" % (parts.scheme.lower(), host, "" if port in (None, default) else ":%d" % port)


def installer_problem(text):
    not_url = "%s is not a URL (e.g. https://10.20.0.11:9443)" % json.dumps(text)
    try:
        parts = urlsplit(text)
    except ValueError:
        return not_url
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", parts.scheme):
        return not_url
    if parts.scheme.lower() != "https":
        return "%s is not https:// (installers serve HTTPS only)" % text
    try:
        if not parts.hostname or parts.port == 0:
            return not_url
    except ValueError:
        return not_url
    if parts.path not in ("", "/") or parts.query or parts.fragment or "@" in parts.netloc:
        return "%s has more than https://host:port; give the installer's address alone" % text
    return None


def is_fingerprint(text):
    text = text.strip()
    if re.fullmatch(r"[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){31}", text):
        text = text.replace(":", "")
    return re.fullmatch(r"[0-9a-fA-F]{64}", text) is not None


class Plan:
    """The inventory's plan: init, joins, drafts and problems, by the fleet's rules in the fleet's order."""

    def __init__(self, names, hostvars, cluster):
        self.names = list(names)
        self.problems = []
        cluster = plain(cluster, CLUSTER_KEYS) if isinstance(cluster, dict) else cluster
        self.cluster = cluster if isinstance(cluster, dict) else {}
        self.nodes = {}
        for name in self.names:
            node = hostvars[name].get("stratum_node")
            if node is None:
                self.add("required", name, "", "stratum_node is required: it holds installer, fingerprint, code, role and config")
            elif not isinstance(node, dict):
                self.add("type", name, "", "stratum_node must be a mapping of keys, not %s" % describe(node))
            else:
                self.nodes[name] = plain(node, NODE_KEYS)
        cluster_well = self.check_cluster(cluster)
        misshapen = {name for name, node in self.nodes.items() if not self.check_node(name, node)}
        self.good = [name for name in self.nodes if name not in misshapen]
        inits = [name for name, node in self.nodes.items() if node.get("role") == "init"]
        self.init = inits[0] if len(inits) == 1 else None
        self.joins = [name for name, node in self.nodes.items() if node.get("role") == "join"]
        self.drafts = {name: self.draft(name, node) for name, node in self.nodes.items()}
        if not isinstance(cluster, dict):
            return  # without a cluster section the plan cannot be read further (the fleet stops here too)
        checked = {name: self.drafts[name] for name in self.good} if cluster_well else {}
        for name in self.good:
            self.check_access(name, self.nodes[name])
        self.check_fields(checked)
        self.check_roles(inits)
        self.check_installers()
        self.check_network(checked)

    def add(self, rule, node, path, message, hint=None):
        self.problems.append(Problem(rule, node, path, message, hint))

    # The plan's shape: the fleet's PlanSchema, in the inventory's terms.

    def check_text(self, node, path, key, value, required):
        """A field of the plan's own that holds text."""
        if value is _ABSENT:
            self.add("required", node, path, "%s is required: %s" % (key, required))
        elif not isinstance(value, str):
            hint = "put it in quotes" if isinstance(value, (int, float)) else None
            self.add("type", node, path, "%s must be a string, not %s" % (key, describe(value, secret=key in SECRET_KEYS)), hint)
        elif value == "":
            self.add("required", node, path, "%s is empty: give it a value" % key)

    def check_keys(self, node, parent, tree, known):
        for key in tree:
            if key not in known:
                self.add("unknown-key", node, parent + key, "%s is not a known key" % shown(str(key)), "known keys: %s" % ", ".join(known))

    def check_draft_part(self, node, path, part):
        """config or common: a mapping without the keys the fleet sets itself; the rest is the node's validator's."""
        if part is _ABSENT:
            return True
        if not isinstance(part, dict):
            self.add("type", node, path, "%s must be a mapping of keys, not %s" % (path.split(".")[-1], describe(part)))
            return False
        owned = [key for key in part if key in FLEET_OWNED and key != "vip"]
        if isinstance(part.get("network"), dict) and "vip" in part["network"]:
            owned.append("network.vip")
        for key in owned:
            self.add("fleet-owned", node, "%s.%s" % (path, key), "%s is set by the fleet, not in a node's config" % key.split(".")[-1], FLEET_OWNED[key.split(".")[-1]])
        return not owned

    def check_cluster(self, cluster):
        """True when the cluster section lets the drafts be composed."""
        if cluster is None:
            self.add("required", None, "cluster", "cluster is required: the cluster section (name, vip, common)")
            return False
        if not isinstance(cluster, dict):
            self.add("type", None, "cluster", "cluster must be a mapping of keys, not %s" % describe(cluster))
            return False
        count = len(self.problems)
        self.check_keys(None, "cluster.", cluster, CLUSTER_KEYS)
        for key in ("name", "vip"):
            self.check_text(None, "cluster." + key, key, cluster.get(key, _ABSENT), CLUSTER_KEYS[key])
        if "joinAddress" in cluster:
            self.check_text(None, "cluster.joinAddress", "joinAddress", cluster["joinAddress"], None)
        self.check_draft_part(None, "cluster.common", cluster.get("common", _ABSENT))
        return len(self.problems) == count

    def check_node(self, name, node):
        """True when the node has the plan's shape."""
        count = len(self.problems)
        self.check_keys(name, "", node, NODE_KEYS)
        for key in ("installer", "fingerprint", "code"):
            self.check_text(name, key, key, node.get(key, _ABSENT), NODE_KEYS[key])
        if "role" not in node:
            self.add("required", name, "role", "role is required: %s" % NODE_KEYS["role"])
        elif node["role"] not in MODES:
            self.add("one-of", name, "role", "role %s is not one of init, join" % json.dumps(node["role"]))
        self.check_draft_part(name, "config", node.get("config", _ABSENT))
        return len(self.problems) == count

    def check_access(self, name, node):
        problem = installer_problem(node["installer"])
        if problem:
            self.add("installer-url", name, "installer", problem)
        if not is_fingerprint(node["fingerprint"]):
            self.add("fingerprint", name, "fingerprint", "the fingerprint is not a SHA-256: 64 hex digits, plain or in colon-separated pairs", "copy the TLS SHA-256 line of the installer's banner")

    # The drafts: the fleet's composeDraft.

    def draft(self, name, node):
        common = self.cluster.get("common") if isinstance(self.cluster.get("common"), dict) else {}
        config = node.get("config") if isinstance(node.get("config"), dict) else {}
        draft = merged(common, config)
        draft["hostname"] = name
        if node.get("role") in MODES:
            draft["mode"] = MODES[node["role"]]
        network = draft.get("network") if isinstance(draft.get("network"), dict) else {}
        draft["network"] = dict(network, vip=self.cluster["vip"]) if "vip" in self.cluster else network
        cluster = {"name": self.cluster.get("name")}
        if node.get("role") != "init":
            join_address = self.cluster.get("joinAddress")
            cluster["joinAddress"] = self.cluster.get("vip") if join_address is None else join_address
        draft["cluster"] = {key: value for key, value in cluster.items() if value is not None}
        return draft

    def where(self, name, keys):
        """The plan path a draft field comes from: the node's config, else the common part (the fleet's planPathOf)."""
        common = self.cluster.get("common")
        for length in range(len(keys), 0, -1):
            if dig(self.nodes[name].get("config"), keys[:length]) is not None:
                break
            if dig(common, keys[:length]) is not None:
                return None, "cluster.common." + ".".join(keys)
        return name, "config." + ".".join(keys)

    # The node validator's rules on the cluster's own fields (core/config/rules: validGatewayAndVip, validJoinAddress).

    def vip_problem(self, draft):
        text = dig(draft, ("network", "vip"))
        if not isinstance(text, str):
            return None
        ip, problem = parse_ip(text)
        if problem:
            return "network.vip: %s" % problem
        placement = self.vip_placement(draft, ip, text)
        if placement:
            return placement
        gateway, _ = parse_ip(dig(draft, ("network", "gateway"))) if isinstance(dig(draft, ("network", "gateway")), str) else (None, None)
        if gateway == ip:
            return "network.vip %s is the gateway's address (network.gateway); the cluster needs an address of its own" % text
        return None

    @staticmethod
    def vip_placement(draft, ip, text):
        subnet, _ = parse_cidr(dig(draft, ("network", "address")))
        if subnet is None:
            return None
        network = subnet.network
        if ip.version != subnet.version:
            return "network.vip %s is IPv%d, but the node's address (network.address) is IPv%d" % (text, ip.version, subnet.version)
        if ip not in network:
            return "network.vip %s is outside the management subnet %s (from network.address)" % (text, network)
        if ip == subnet.ip:
            return "network.vip %s is the node's own address (network.address %s)" % (text, draft["network"]["address"])
        if ip.version == 4 and network.prefixlen <= 30 and ip in (network.network_address, network.broadcast_address):
            return "network.vip %s is the %s address of %s" % (text, "network" if ip == network.network_address else "broadcast", network)
        return None

    def join_address_problem(self, draft):
        text = dig(draft, ("cluster", "joinAddress"))
        if not isinstance(text, str):
            return None
        host, port = split_host_port(text)
        if port is not None and not (re.fullmatch(r"\d{1,5}", port) and 1 <= int(port) <= 65535):
            problem = "port %s is not a port number (1–65535)" % quoted(port)
        else:
            ip, problem = parse_host_or_ip(host)
            subnet, _ = parse_cidr(dig(draft, ("network", "address")))
            if ip is not None and subnet is not None and ip == subnet.ip:
                problem = "%s is this node's own address (network.address); point it at a node already in the cluster" % host
        return "cluster.joinAddress: %s" % problem if problem else None

    def check_fields(self, drafts):
        """Each rule's problem once, naming the nodes it concerns when not all of them (the fleet's fieldProblems)."""
        join_path = "cluster.joinAddress" if "joinAddress" in self.cluster else "cluster.vip"
        grouped = {}
        for name, draft in drafts.items():
            for rule, path, message in (("vip", "cluster.vip", self.vip_problem(draft)), ("join-address", join_path, self.join_address_problem(draft))):
                if message:
                    grouped.setdefault((rule, path, message), []).append(name)
        hints = {"join-address": "give a node already in the cluster as IP, IP:port or hostname, e.g. 10.20.0.10 or 10.20.0.10:9443"}
        for (rule, path, message), names in grouped.items():
            suffix = "" if len(names) == len(self.names) else " (for %s)" % ", ".join(names)
            self.add(rule, None, path, message + suffix, hints.get(rule))

    # The rules across nodes (the fleet's crossNodeProblems).

    def check_roles(self, inits):
        if not inits:
            self.add("init-missing", None, "nodes", "no node has role: init; exactly one node founds the cluster, the others join", "set role: init in one host's stratum_node")
        for name in inits[1:]:
            self.add("init-twice", name, "role", "%s is a second init (%s is one); exactly one node founds the cluster, the others join" % (name, inits[0]))

    def check_installers(self):
        first = {}
        for name in self.good:
            installer = self.nodes[name]["installer"]
            seen = first.setdefault(origin(installer), name)
            if seen != name:
                self.add("installer-unique", name, "installer", "%s is also %s's installer" % (installer, seen))
        # One pinned certificate with one install code is one installer under two addresses (a certificate alone may
        # be shared). Codes given as env:/file: are read by the module, not here.
        first = {}
        for name in self.good:
            node = self.nodes[name]
            code = node["code"].strip()
            if installer_problem(node["installer"]) or not is_fingerprint(node["fingerprint"]) or code.startswith(("env:", "file:")):
                continue
            key = (node["fingerprint"].strip().replace(":", "").lower(), re.sub(r"[\s-]", "", code).upper())
            seen = first.setdefault(key, name)
            if seen != name:
                message = "%s has %s's pinned certificate and install code: one installer listed twice (under another address?); each node has its own code"
                self.add("installer-unique", name, "code", message % (name, seen))

    def check_network(self, drafts):
        addresses = {}
        for name, draft in drafts.items():
            subnet, _ = parse_cidr(dig(draft, ("network", "address")))
            if subnet is not None:
                addresses[name] = subnet
        first_at = {}
        for name, subnet in addresses.items():
            seen = first_at.setdefault(subnet.ip, name)
            if seen != name:
                self.add("address-unique", *self.where(name, ("network", "address")), "%s is also %s's address" % (drafts[name]["network"]["address"], seen))
        for first, name in self.differing(addresses, lambda a, b: a.network == b.network):
            self.add("subnet", *self.where(name, ("network", "address")), "%s is in %s, but %s is in %s: every node has its address in one management subnet" % (drafts[name]["network"]["address"], addresses[name].network, first, addresses[first].network))
        gateways = {name: dig(d, ("network", "gateway")) for name, d in drafts.items() if dig(d, ("network", "gateway")) is not None}
        for first, name in self.differing(gateways, lambda a, b: a == b):
            self.add("gateway", *self.where(name, ("network", "gateway")), "%s differs from %s's gateway %s: every node has the same gateway" % (gateways[name], first, gateways[first]))
        ranges = {}
        for name, draft in drafts.items():
            listed = dig(draft, ("network", "floatingIpCidrs"))
            ranges[name] = sorted(str(r) for r in listed) if isinstance(listed, list) else []
        shown_ranges = lambda listed: ", ".join(listed) or "none"  # noqa: E731
        for first, name in self.differing(ranges, lambda a, b: a == b):
            self.add(
                "floating-ranges",
                *self.where(name, ("network", "floatingIpCidrs")),
                "%s has floating ranges %s, %s %s: every node has the same floating ranges" % (name, shown_ranges(ranges[name]), first, shown_ranges(ranges[first])),
                "set them once in stratum_cluster.common.network.floatingIpCidrs",
            )

    @staticmethod
    def differing(values, same):
        """(first node, other node) for each node whose value differs from the first one's."""
        names = list(values)
        return [(names[0], name) for name in names[1:] if not same(values[names[0]], values[name])]



def check_plan(names, hostvars, cluster=None):
    """The plan of the hosts `names` (group stratum), their hostvars and the group's stratum_cluster."""
    return Plan(names, hostvars, cluster)


def _value(value):
    return "(none)" if value is None else shown(value) if isinstance(value, str) else shown(json.dumps(value))


def installed_conflicts(plan, cluster, init, nodes):
    """Where the inventory's cluster contradicts the installed one: the installed init's cluster name and vip, the
    join address installed joins joined. An installed node is not reconfigured, so a join installed after such a
    change would join another cluster than its init founded (JOIN_CLUSTER_MISMATCH, once its draft was written).

    plan: the plan filter's answer; cluster: the group's stratum_cluster; init: node_info's answer on the init
    node (with stored_draft); nodes: node_info's answers on the nodes of the run, by name. Each conflict names
    both values."""
    drafts = plan.get("drafts") or {}
    cluster = cluster if isinstance(cluster, dict) else {}
    found = []
    name = plan.get("init")
    stored = (init or {}).get("stored_draft") if ((init or {}).get("status") or {}).get("phase") == "done" else None
    if isinstance(stored, dict) and name in drafts:
        for what, keys, where in (("cluster name", ("cluster", "name"), "stratum_cluster.name"), ("vip", ("network", "vip"), "stratum_cluster.vip")):
            installed, wanted = dig(stored, keys), dig(drafts[name], keys)
            if installed != wanted:
                said = "founded cluster %s" % _value(installed) if what == "cluster name" else "has %s %s" % (what, _value(installed))
                found.append("%s: %s, the installed init, %s; the inventory says %s (%s)" % (what, name, said, _value(wanted), where))
    joined = {}
    for node in plan.get("joins") or []:
        info = (nodes or {}).get(node) or {}
        if (info.get("status") or {}).get("phase") != "done" or not isinstance(info.get("stored_draft"), dict) or node not in drafts:
            continue
        installed, wanted = dig(info["stored_draft"], ("cluster", "joinAddress")), dig(drafts[node], ("cluster", "joinAddress"))
        if installed != wanted:
            joined.setdefault((_value(installed), _value(wanted)), []).append(node)
    where = "stratum_cluster.joinAddress" if "joinAddress" in cluster else "stratum_cluster.vip, the join address when joinAddress is not set"
    for (installed, wanted), names in joined.items():
        found.append("join address: %s, installed, joined %s; the inventory says %s (%s)" % (", ".join(names), installed, wanted, where))
    return found
