# -*- coding: utf-8 -*-
"""The attributes of a stratum.installer module that only reads the node (join_token, node_info)."""


class ModuleDocFragment(object):
    DOCUMENTATION = r"""
attributes:
  check_mode:
    support: full
    description: Reads only, in check mode as in a normal run.
  diff_mode:
    support: none
    description: Changes nothing, so has nothing to show.
"""
