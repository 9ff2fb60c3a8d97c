"""Addresses and hostnames as the installer's validator reads them (core/config/net.ts), with its words for
what is wrong: stricter than ipaddress alone (no zone index, no netmask, no leading zeros)."""

import ipaddress
import json
import re


def quoted(text):
    return json.dumps(text if len(text) <= 64 else text[:64] + "…", ensure_ascii=False)


def shown(text):
    return text if re.fullmatch(r"[\w.:/%@+-]{1,64}", text, re.ASCII) else quoted(text)


# Addresses as the installer's validator reads them (core/config/net.ts): stricter than ipaddress alone.

def parse_ip(text):
    """(address, None) or (None, why not)."""
    if text.strip() != text:
        return None, "%s has spaces around it" % json.dumps(text)
    if "/" in text:
        return None, "%s has a prefix length: write the address alone (%s)" % (shown(text), shown(text.split("/")[0]))
    if "%" in text:
        return None, "%s has a zone index (%%…), which is not allowed here" % shown(text)
    try:
        return ipaddress.ip_address(text), None
    except ValueError:
        why = why_not_ipv4(text)
        return None, "%s is not an IP address%s" % (shown(text), ": " + why if why else "")


def why_not_ipv4(text):
    if not re.fullmatch(r"\d+(\.\d+)*", text):
        return None
    parts = text.split(".")
    if len(parts) != 4:
        return "an IPv4 address has 4 numbers, this has %d" % len(parts)
    too_big = next((part for part in parts if int(part) > 255), None)
    if too_big:
        return "%s is more than 255" % too_big
    leading_zero = next((part for part in parts if len(part) > 1 and part.startswith("0")), None)
    return "%s has a leading zero" % leading_zero if leading_zero else None


def parse_cidr(text):
    """(interface, None) or (None, why not)."""
    if not isinstance(text, str):
        return None, "not a string"
    address, slash, prefix = text.partition("/")
    if not slash:
        return None, "%s has no prefix length (/24, /64, …)" % shown(text)
    ip, problem = parse_ip(address)
    if problem:
        return None, problem
    if not re.fullmatch(r"\d{1,3}", prefix) or int(prefix) > ip.max_prefixlen:
        return None, "prefix %s is out of range" % quoted(prefix)
    return ipaddress.ip_interface("%s/%s" % (ip, prefix)), None


def hostname_problem(name):
    """Which RFC 1123 rule name breaks, if any."""
    if len(name) > 253:
        return "it is %d characters long; a hostname has at most 253" % len(name)
    labels = name.split(".")
    if "" in labels:
        return "it has an empty label (a dot at the start or end, or two dots in a row)"
    bad = re.search(r"[^A-Za-z0-9.-]", name)
    if bad:
        return "it contains %s; a hostname has only letters a-z, digits 0-9, \"-\" and dots between labels" % ("a space" if bad.group() == " " else quoted(bad.group()))
    if re.search(r"[A-Z]", name):
        return "it has uppercase letters; write it in lowercase (%s)" % quoted(name.lower())
    if re.fullmatch(r"[\d.]+", name):
        return "it has only digits and dots, so it reads as an IP address; a hostname needs a letter"
    for label in labels:
        if len(label) > 63:
            return "label %s is %d characters long; a label has at most 63" % (quoted(label), len(label))
        if label.startswith("-") or label.endswith("-"):
            return "label %s %s with \"-\"" % (quoted(label), "starts" if label.startswith("-") else "ends")
    return None


def split_host_port(text):
    bracketed = re.fullmatch(r"\[([^\]]*)\](?::(.*))?", text)
    if bracketed:
        return bracketed.group(1), bracketed.group(2)
    if text.count(":") != 1:
        return text, None
    host, _, port = text.partition(":")
    return host, port


def parse_host_or_ip(text):
    """(address or None for a hostname, None) or (None, why not)."""
    ip, problem = parse_ip(text)
    if ip is not None:
        return ip, None
    if re.fullmatch(r"[\d.]+", text) or re.search(r"[:/%]", text) or text.strip() != text:
        return None, problem
    why = hostname_problem(text)
    return None, ("%s is neither an IP address nor a valid hostname: %s" % (quoted(text), why) if why else None)
