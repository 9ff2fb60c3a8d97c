"""stratum.installer.plan: the inventory read as a fleet plan (SPEC §10), its rules in module_utils/plan_rules.py."""

from ansible_collections.stratum.installer.plugins.module_utils.plan_rules import check_plan


def plan(names, hostvars, cluster=None):
    """groups['stratum'] | stratum.installer.plan(hostvars, stratum_cluster | default(None))"""
    checked = check_plan(list(names), hostvars, cluster)
    return {"init": checked.init, "joins": checked.joins, "drafts": checked.drafts, "errors": [str(p) for p in checked.problems]}


class FilterModule:
    def filters(self):
        return {"plan": plan}
