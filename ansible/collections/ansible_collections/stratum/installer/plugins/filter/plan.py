"""stratum.installer.plan: the inventory read as a fleet plan (SPEC §10), its rules in module_utils/plan_rules.py;
stratum.installer.installed_conflicts: where that plan contradicts the installed cluster."""

from ansible_collections.stratum.installer.plugins.module_utils.plan_rules import check_plan, installed_conflicts


def plan(names, hostvars, cluster=None):
    """groups['stratum'] | stratum.installer.plan(hostvars, stratum_cluster | default(None))"""
    checked = check_plan(list(names), hostvars, cluster)
    return {"init": checked.init, "joins": checked.joins, "drafts": checked.drafts, "errors": [str(p) for p in checked.problems]}


def conflicts(the_plan, cluster, init, nodes):
    """stratum_plan | stratum.installer.installed_conflicts(stratum_cluster, init's node_info, {name: node_info})"""
    return installed_conflicts(the_plan, cluster, init, dict(nodes or {}))


class FilterModule:
    def filters(self):
        return {"plan": plan, "installed_conflicts": conflicts}
