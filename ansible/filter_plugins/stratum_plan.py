"""The inventory read as a fleet plan (SPEC §10): each node's draft, and every problem the plan has."""

import copy
import ipaddress
import re

NODE_KEYS = ("installer", "fingerprint", "code", "role", "config")
CLUSTER_KEYS = ("name", "vip", "joinAddress", "common")
MODES = {"init": "hyperconverged-init", "join": "hyperconverged-join"}


def merged(base, over):
    out = copy.deepcopy(base)
    for key, value in over.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else copy.deepcopy(value)
    return out


def dig(tree, *keys):
    for key in keys:
        tree = tree.get(key) if isinstance(tree, dict) else None
    return tree


class Plan:
    def __init__(self, names, hostvars, cluster):
        self.errors = []
        self.cluster = cluster if isinstance(cluster, dict) else {}
        self.nodes = {}
        for name in names:
            node = hostvars[name].get("stratum_node")
            if not isinstance(node, dict):
                self.errors.append("%s: stratum_node: missing; it holds installer, fingerprint, code, role and config" % name)
                continue
            self.nodes[name] = node
        self.check_shape(cluster)
        self.drafts = {name: self.draft(name, node) for name, node in self.nodes.items()}
        self.check_cluster()

    def where(self, name, *keys):
        """The plan path that set a draft field: the node's config, else the cluster's common part."""
        path = ".".join(keys)
        if dig(self.nodes[name].get("config"), *keys) is None and dig(self.cluster.get("common"), *keys) is not None:
            return "stratum_cluster.common." + path
        return "%s: stratum_node.config.%s" % (name, path)

    def check_shape(self, cluster):
        if not isinstance(cluster, dict):
            self.errors.append("stratum_cluster: missing; it holds the cluster's name, vip and common config")
        else:
            for key in sorted(set(cluster) - set(CLUSTER_KEYS)):
                self.errors.append("stratum_cluster.%s: unknown key; the known ones are %s" % (key, ", ".join(CLUSTER_KEYS)))
            for key in ("name", "vip"):
                if not cluster.get(key):
                    self.errors.append("stratum_cluster.%s: required" % key)
            if not isinstance(cluster.get("common", {}), dict):
                self.errors.append("stratum_cluster.common: must be a mapping of draft fields")
        for name, node in self.nodes.items():
            for key in sorted(set(node) - set(NODE_KEYS)):
                self.errors.append("%s: stratum_node.%s: unknown key; the known ones are %s" % (name, key, ", ".join(NODE_KEYS)))
            for key in ("installer", "fingerprint", "code", "role"):
                if not node.get(key):
                    self.errors.append("%s: stratum_node.%s: required" % (name, key))
            if node.get("installer") and not str(node["installer"]).startswith("https://"):
                self.errors.append("%s: stratum_node.installer: %s is not an https:// URL" % (name, node["installer"]))
            if node.get("fingerprint") and not re.fullmatch(r"[0-9a-fA-F]{64}", str(node["fingerprint"]).replace(":", "")):
                self.errors.append("%s: stratum_node.fingerprint: not a SHA-256 (64 hex digits, with or without colons)" % name)
            if node.get("role") and node["role"] not in MODES:
                self.errors.append("%s: stratum_node.role: %s is neither init nor join" % (name, node["role"]))
            if not isinstance(node.get("config", {}), dict):
                self.errors.append("%s: stratum_node.config: must be a mapping of draft fields" % name)
        inits = [name for name, node in self.nodes.items() if node.get("role") == "init"]
        if len(inits) != 1:
            self.errors.append("stratum: exactly one node has role init; %s" % ("none has" if not inits else "these have: " + ", ".join(inits)))
        self.init = inits[0] if len(inits) == 1 else None

    def draft(self, name, node):
        common = self.cluster.get("common") if isinstance(self.cluster.get("common"), dict) else {}
        config = node.get("config") if isinstance(node.get("config"), dict) else {}
        draft = merged(merged(common, config), {"hostname": name})
        if node.get("role") in MODES:
            draft["mode"] = MODES[node["role"]]
        cluster = {"name": self.cluster.get("name")}
        if node.get("role") == "join":
            cluster["joinAddress"] = self.cluster.get("joinAddress") or self.cluster.get("vip")
        draft["cluster"] = merged(draft.get("cluster") or {}, {k: v for k, v in cluster.items() if v})
        if self.cluster.get("vip"):
            draft.setdefault("network", {})["vip"] = self.cluster["vip"]
        return draft

    def check_cluster(self):
        addresses = {}
        for name, draft in self.drafts.items():
            value = dig(draft, "network", "address")
            try:
                addresses[name] = ipaddress.ip_interface(str(value))
            except ValueError:
                self.errors.append("%s: %s is not an address with its prefix (10.20.0.11/24)" % (self.where(name, "network", "address"), value))
        seen = {}
        for name in self.drafts:
            seen.setdefault(name.lower(), []).append(name)
        for same in seen.values():
            if len(same) > 1:
                self.errors.append("stratum: the hostnames %s are the same" % ", ".join(same))
        by_ip = {}
        for name, iface in addresses.items():
            by_ip.setdefault(iface.ip, []).append(name)
        for ip, same in by_ip.items():
            if len(same) > 1:
                self.errors.append("%s: %s is also the address of %s" % (self.where(same[-1], "network", "address"), ip, ", ".join(same[:-1])))
        self.check_same("subnet", {name: iface.network for name, iface in addresses.items()}, ("network", "address"))
        self.check_same("gateway", {name: dig(d, "network", "gateway") for name, d in self.drafts.items()}, ("network", "gateway"))
        floating = {name: ", ".join(sorted(map(str, dig(d, "network", "floatingIpCidrs") or []))) or "none" for name, d in self.drafts.items()}
        self.check_same("floating IP ranges", floating, ("network", "floatingIpCidrs"))
        self.check_vip(addresses)

    def check_same(self, what, values, keys):
        names = list(values)
        if not names:
            return
        first = names[0]
        for name in names[1:]:
            if values[name] != values[first]:
                self.errors.append("%s: %s %s differs from %s's %s; every node needs the same" % (self.where(name, *keys), what, values[name], first, values[first]))

    def check_vip(self, addresses):
        vip = self.cluster.get("vip")
        if not vip:
            return
        try:
            ip = ipaddress.ip_address(str(vip))
        except ValueError:
            self.errors.append("stratum_cluster.vip: %s is not an IP address" % vip)
            return
        subnets = {iface.network for iface in addresses.values()}
        if len(subnets) == 1 and ip not in next(iter(subnets)):
            self.errors.append("stratum_cluster.vip: %s is outside the management subnet %s" % (vip, next(iter(subnets))))
        for name, iface in addresses.items():
            if iface.ip == ip:
                self.errors.append("stratum_cluster.vip: %s is %s's address; the cluster needs one of its own" % (vip, name))


def stratum_plan(names, hostvars, cluster=None):
    plan = Plan(list(names), hostvars, cluster)
    return {"init": plan.init, "drafts": plan.drafts, "errors": plan.errors}


class FilterModule:
    def filters(self):
        return {"stratum_plan": stratum_plan}
