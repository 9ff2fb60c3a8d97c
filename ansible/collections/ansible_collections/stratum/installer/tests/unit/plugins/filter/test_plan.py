"""The plan's rules: test/fixtures/plan-rules.json (the fleet's table of cases) through stratum.installer.plan.

From the repository's root:
  PYTHONPATH=ansible/collections python3 -m unittest discover -s ansible/collections/ansible_collections/stratum/installer/tests/unit
"""

import copy
import json
import re
import unittest
from collections.abc import Sequence
from pathlib import Path

from ansible_collections.stratum.installer.plugins.filter.plan import FilterModule
from ansible_collections.stratum.installer.plugins.module_utils.plan_rules import RULES, check_plan

FIXTURE = Path(__file__).resolve().parents[9] / "test" / "fixtures" / "plan-rules.json"
TABLE = json.loads(FIXTURE.read_text(encoding="utf-8"))
APPLIED = sorted(rule for rule, about in TABLE["rules"].items() if "notInAnsible" not in about)


def keys_of(path):
    """nodes[1].config.network.dns → ["nodes", 1, "config", "network", "dns"] (the fleet's parseFieldPath)."""
    return [key if index == "" else int(index) for key, index in re.findall(r"([^.[\]]+)|\[(\d+)\]", path)]


def plan_of(case):
    plan = copy.deepcopy(TABLE["base"])
    for path, value in case.get("set", {}).items():
        *parents, last = keys_of(path)
        tree = plan
        for key in parents:
            if not isinstance(tree[key] if isinstance(tree, list) else tree.get(key), (dict, list)):
                tree[key] = {}
            tree = tree[key]
        tree[last] = value
    for path in case.get("unset", []):
        *parents, last = keys_of(path)
        tree = plan
        for key in parents:
            tree = tree[key]
        del tree[last]
    return plan


def inventory_of(plan):
    """The plan as the filter takes it: the group's host names, their hostvars (stratum_node), stratum_cluster."""
    names = [node["name"] for node in plan["nodes"]]
    hostvars = {node["name"]: {"stratum_node": {k: v for k, v in node.items() if k != "name"}} for node in plan["nodes"]}
    return names, hostvars, plan.get("cluster")


def place(problem):
    return (problem["rule"], problem.get("node"), problem["path"])


def rendered(message):
    """{node-02} → node-02: Ansible names a node by its host name."""
    return re.sub(r"\{([^{}]+)\}", r"\1", message)


class TheTable(unittest.TestCase):
    def test_the_filter_applies_the_rules_the_table_gives_it(self):
        self.assertEqual(sorted(RULES), APPLIED)

    def test_every_rule_it_applies_has_a_case_it_runs(self):
        run = {p["rule"] for case in TABLE["cases"] if "notInventory" not in case and "text" not in case for p in case["problems"]}
        self.assertEqual([rule for rule in APPLIED if rule not in run], [])


class TheCases(unittest.TestCase):
    def test_each_case(self):
        for case in TABLE["cases"]:
            if "notInventory" in case or "text" in case:
                continue
            with self.subTest(case["name"]):
                names, hostvars, cluster = inventory_of(plan_of(case))
                checked = check_plan(names, hostvars, cluster)
                actual = [{"rule": p.rule, "node": p.node, "path": p.path, "message": p.message} for p in checked.problems]
                self.assertTrue(all(p["rule"] in RULES for p in actual), actual)
                expected = [p for p in case["problems"] if p["rule"] in RULES]
                self.assertEqual(sorted(map(place, actual), key=str), sorted(map(place, expected), key=str), json.dumps(actual, indent=1))
                for problem in expected:
                    if "message" in problem:
                        messages = [p["message"] for p in actual if place(p) == place(problem)]
                        self.assertIn(rendered(problem["message"]), messages)
                for name, draft in case.get("drafts", {}).items():
                    self.assertEqual(checked.drafts[name], draft)


class TheFilter(unittest.TestCase):
    plan = staticmethod(FilterModule().filters()["plan"])

    def test_a_plan_that_holds(self):
        names, hostvars, cluster = inventory_of(plan_of({}))
        result = self.plan(names, hostvars, cluster)
        self.assertEqual((result["init"], result["joins"], result["errors"]), ("node-01", ["node-02", "node-03"], []))
        self.assertEqual(sorted(result["drafts"]), names)

    def test_each_problem_a_line_with_its_place(self):
        broken = plan_of({"set": {"nodes[2].config.network.address": "10.20.0.12/24", "nodes[1].role": "init", "nodes[0].config.mode": "single-node"}})
        result = self.plan(*inventory_of(broken))
        self.assertIsNone(result["init"])
        self.assertEqual(
            sorted(result["errors"]),
            [
                "node-01: stratum_node.config.mode: mode is set by the fleet, not in a node's config"
                " (the node's role decides it (init: hyperconverged-init, join: hyperconverged-join))",
                "node-02: stratum_node.role: node-02 is a second init (node-01 is one); exactly one node founds the cluster, the others join",
                "node-03: stratum_node.config.network.address: 10.20.0.12/24 is also node-02's address",
            ],
        )

    def test_what_only_an_inventory_can_say(self):
        names, hostvars, _ = inventory_of(plan_of({}))
        hostvars["node-03"] = {}
        hostvars["node-02"] = {"stratum_node": "node-02"}
        result = self.plan(names, hostvars, None)
        self.assertEqual(
            result["errors"],
            [
                "node-02: stratum_node: stratum_node must be a mapping of keys, not a string",
                "node-03: stratum_node: stratum_node is required: it holds installer, fingerprint, code, role and config",
                "stratum_cluster: cluster is required: the cluster section (name, vip, common)",
            ],
        )


class Vaulted(Sequence):
    """A !vault value as a filter gets it: ansible's AnsibleVaultEncryptedUnicode (parsing/yaml/objects.py), a
    Sequence marked __ENCRYPTED__ whose text is .data, not a str (these tests run without ansible installed)."""

    __ENCRYPTED__ = True

    def __init__(self, plaintext):
        self._plaintext = plaintext

    @property
    def data(self):
        return self._plaintext

    def __str__(self):
        return self.data

    def __eq__(self, other):
        return self.data == other

    def __hash__(self):
        return hash(self.data)

    def __getitem__(self, index):
        return self.data[index]

    def __len__(self):
        return len(self.data)


class TheSecrets(unittest.TestCase):
    plan = staticmethod(FilterModule().filters()["plan"])

    def test_a_vaulted_string_is_a_string(self):
        names, hostvars, cluster = inventory_of(plan_of({}))
        for name in names:
            node = hostvars[name]["stratum_node"]
            for key in ("installer", "fingerprint", "code"):
                node[key] = Vaulted(node[key])
        cluster["name"] = Vaulted(cluster["name"])
        cluster["common"]["admin"]["passwordHash"] = Vaulted("$6$salt$HASHSECRET")
        self.assertEqual(self.plan(names, hostvars, cluster)["errors"], [])

    def test_vaulted_codes_that_are_one_installer_listed_twice(self):
        names, hostvars, cluster = inventory_of(plan_of({}))
        second, third = hostvars["node-02"]["stratum_node"], hostvars["node-03"]["stratum_node"]
        third["fingerprint"] = second["fingerprint"]
        second["code"], third["code"] = Vaulted("TTDX-WBWP-4QJC"), Vaulted("ttdx wbwp 4qjc")
        self.assertEqual(
            self.plan(names, hostvars, cluster)["errors"],
            ["node-03: stratum_node.code: node-03 has node-02's pinned certificate and install code: one installer listed twice (under another address?); each node has its own code"],
        )

    def test_no_message_shows_a_secret_field_s_value(self):
        names, hostvars, cluster = inventory_of(plan_of({}))
        hostvars["node-01"]["stratum_node"]["code"] = 73195824
        hostvars["node-02"]["stratum_node"]["code"] = True
        hostvars["node-03"]["stratum_node"] = Vaulted("TTDX-WBWP-4QJC")
        errors = self.plan(names, hostvars, cluster)["errors"]
        self.assertEqual(
            errors,
            [
                "node-03: stratum_node: stratum_node must be a mapping of keys, not a string",
                "node-01: stratum_node.code: code must be a string, not a number (put it in quotes)",
                "node-02: stratum_node.code: code must be a string, not a boolean (put it in quotes)",
            ],
        )


class TheInstalledCluster(unittest.TestCase):
    """stratum.installer.installed_conflicts: the plan against what installed nodes hold (node_info's stored_draft)."""

    plan = staticmethod(FilterModule().filters()["plan"])
    conflicts = staticmethod(FilterModule().filters()["installed_conflicts"])

    def setUp(self):
        self.names, self.hostvars, self.cluster = inventory_of(plan_of({}))
        self.init, self.joins = self.names[0], self.names[1:]
        drafts = self.plan(self.names, self.hostvars, self.cluster)["drafts"]
        self.infos = {name: {"status": {"phase": "done"}, "stored_draft": copy.deepcopy(drafts[name])} for name in self.names}

    def found(self, cluster):
        the_plan = self.plan(self.names, self.hostvars, cluster)
        self.assertEqual(the_plan["errors"], [])
        return self.conflicts(the_plan, cluster, self.infos[self.init], self.infos)

    def test_the_installed_cluster_as_planned(self):
        self.assertEqual(self.found(self.cluster), [])

    def test_a_new_name_and_vip_name_both_values_and_the_joins_installed(self):
        cluster = dict(self.cluster, name="rack-b", vip="10.20.0.9")
        self.assertEqual(
            self.found(cluster),
            [
                "cluster name: %s, the installed init, founded cluster %s; the inventory says rack-b (stratum_cluster.name)" % (self.init, self.cluster["name"]),
                "vip: %s, the installed init, has vip %s; the inventory says 10.20.0.9 (stratum_cluster.vip)" % (self.init, self.cluster["vip"]),
                # No joinAddress: the vip is the joins' join address too.
                "join address: %s, installed, joined %s; the inventory says 10.20.0.9 (stratum_cluster.vip, the join address when joinAddress is not set)"
                % (", ".join(self.joins), self.cluster["vip"]),
            ],
        )

    def test_a_new_join_address_names_the_joins_installed_with_the_old(self):
        cluster = dict(self.cluster, joinAddress="10.20.0.10:9999")
        self.infos[self.joins[-1]]["status"]["phase"] = "configuring"
        old = self.infos[self.joins[0]]["stored_draft"]["cluster"]["joinAddress"]
        self.assertEqual(
            self.found(cluster),
            ["join address: %s, installed, joined %s; the inventory says 10.20.0.10:9999 (stratum_cluster.joinAddress)" % (", ".join(self.joins[:-1]), old)],
        )

    def test_nothing_installed_nothing_to_contradict(self):
        for info in self.infos.values():
            info["status"]["phase"] = "configuring"
        self.assertEqual(self.found(dict(self.cluster, name="rack-b", joinAddress="10.20.0.10:9999")), [])

    def test_a_raw_stored_draft_is_not_compared(self):
        for info in self.infos.values():
            info["stored_draft"] = None
        self.assertEqual(self.found(dict(self.cluster, name="rack-b")), [])


if __name__ == "__main__":
    unittest.main()
