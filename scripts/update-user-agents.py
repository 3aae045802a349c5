#!/usr/bin/env python3
"""Regenerates Sources/FerryCore/UserAgentTokens.swift, the classifier's data file of bot tokens.

The data is a tab-separated table in a Swift string literal, so that it is compiled into every binary that classifies
user agents (no resource bundle to deploy beside it), with its sources and their licences named in its header.

Sources (each named with its licence in the file's header):
  - crawler-user-agents (PyPI, MIT): crawler, unfurler, monitor, HTTP-library and headless-browser patterns with tags;
  - scripts/user-agents-own.tsv: tokens Ferry keeps itself (what the public list misses or gets wrong).

Every token is checked against browsers nobody here wrote: the user agents of fake-useragent (PyPI, Apache-2.0) and
of uap-core's device test file (Debian's uap-core package, Apache-2.0), its spiders left out. A token found in any of
them is refused, so that no person's browser is ever taken for a bot by a pattern of the list.

Usage:
  scripts/update-user-agents.py [--work DIR] [--version X.Y.Z] [--check]

Downloads the packages it needs with pip (PyPI is reachable), or reads them from --work when they are there already.
--check regenerates into memory and exits 1 when the committed file differs (for CI or review).
"""
import argparse
import glob
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "Sources", "FerryCore", "UserAgentTokens.swift")
OWN = os.path.join(ROOT, "scripts", "user-agents-own.tsv")
CRAWLER_USER_AGENTS = "crawler-user-agents"
DEFAULT_VERSION = "1.67.0"
FAKE_USERAGENT = ("fake-useragent", "2.2.0")

# crawler-user-agents' tags, mapped to the classifier's classes; the first tag found in this order decides.
CLASS_BY_TAG = [
    ("social-preview", "unfurler"),
    ("browser-automation", "headless"),
    ("http-library", "library"),
    ("monitoring", "monitor"),
    ("ai-crawler", "ai"),
    ("scanner", "scanner"),
]
CLASSES = {"unfurler", "crawler", "ai", "monitor", "library", "headless", "scanner", "mail"}

# Shorter tokens than this say too little to be safe as substrings.
MINIMUM_TOKEN = 4


def download(package, version, work):
    """The wheel of `package==version` in `work`, downloaded with pip when missing."""
    stem = package.replace("-", "_")
    found = glob.glob(os.path.join(work, f"{stem}-{version}-*.whl"))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "-d", work,
                        f"{package}=={version}"], check=True)
        found = glob.glob(os.path.join(work, f"{stem}-{version}-*.whl"))
    if not found:
        sys.exit(f"no wheel of {package} {version} in {work}")
    return found[0]


def wheel_file(wheel, suffix):
    with zipfile.ZipFile(wheel) as archive:
        names = [name for name in archive.namelist() if name.endswith(suffix)]
        if not names:
            sys.exit(f"{wheel} has no {suffix}")
        return archive.read(names[0]).decode("utf-8")


def alternatives(pattern):
    """The plain strings a simple regular expression stands for, or None when it is not simple.

    Simple means: escaped punctuation, character classes that only list the case variants of one letter (or a few
    literal characters), one level of (a|b) groups, a leading ^ (kept as a word start) and a trailing $ (dropped).
    """
    if "|" in pattern and "(" not in pattern and "[" not in pattern:
        # A top-level alternation: each side on its own.
        parts = [alternatives(part) for part in pattern.split("|")]
        return None if any(part is None for part in parts) else [token for part in parts for token in part]
    text = pattern
    word_start = False
    if text.startswith("^"):
        word_start = True
        text = text[1:]
    if text.endswith("$") and not text.endswith("\\$"):
        text = text[:-1]
    results = [""]
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            if index + 1 >= len(text):
                return None
            escaped = text[index + 1]
            if escaped.isalnum():
                return None  # \d, \w, \s, \b...
            results = [r + escaped for r in results]
            index += 2
        elif char == "[":
            end = text.find("]", index)
            if end < 0:
                return None
            members = text[index + 1:end].replace("\\", "")
            if not members or "-" in members[1:-1] or members.startswith("^"):
                return None
            letters = {m.lower() for m in members}
            if len(letters) == 1:
                letter = next(iter(letters))
                results = [r + letter for r in results]
            elif len(letters) <= 4:
                results = [r + m for r in results for m in sorted(letters)]
            else:
                return None
            index = end + 1
        elif char == "(":
            end = text.find(")", index)
            if end < 0 or "(" in text[index + 1:end]:
                return None
            inner = text[index + 1:end]
            if inner.startswith("?:"):
                inner = inner[2:]
            options = inner.split("|")
            if any(re.search(r"[\\\[\]\.\*\+\?\^\$\{\}]", option) for option in options):
                return None
            if end + 1 < len(text) and text[end + 1] in "?*+{":
                return None
            results = [r + option for r in results for option in options]
            index = end + 1
        elif char in ".*+?{}|$^)]":
            return None
        else:
            results = [r + char for r in results]
            index += 1
        if len(results) > 16:
            return None
    tokens = []
    for result in results:
        token = result.lower()
        tokens.append(("|" if word_start else "") + token)
    return tokens


def name_for(token):
    """A short stable name from a token: its first word, lowercase, letters, digits and dashes only."""
    bare = token.lstrip("|")
    word = re.split(r"[^a-z0-9\-]+", bare)
    word = next((w for w in word if w), bare)
    return word.strip("-")[:40] or "generic"


def yaml_user_agents(text):
    """(user agent, the rest of its entry) of each `- user_agent:` entry of a Device Detector fixture."""
    out = []
    for block in re.split(r"\n-\s*\n\s*user_agent:", "\n" + text)[1:]:
        first, _, rest = block.partition("\n")
        agent = first.strip()
        if len(agent) >= 2 and agent[0] == agent[-1] and agent[0] in "'\"":
            agent = agent[1:-1].replace("''", "'") if agent[0] == "'" else json.loads(agent)
        out.append((agent, rest))
    return out


DEVICE_DETECTOR = ("device-detector", "6.5.1")


def device_detector_browsers(work, half):
    """The browsers of Matomo Device Detector's phone, tablet and desktop fixtures (device_detector on PyPI, LGPL-3.0:
    read, never copied into Ferry). Half of the fixture files check the tokens ("check"), the other half measure the
    classifier (scripts/user-agent-corpora.py, "measure"), so that the measurement is not of what was checked."""
    wheel = download(*DEVICE_DETECTOR, work)
    agents = []
    with zipfile.ZipFile(wheel) as archive:
        for name in sorted(archive.namelist()):
            base = os.path.basename(name)
            match = re.match(r"(smartphone|tablet|phablet|desktop)(?:-(\d+))?\.yml$", base)
            if "/tests/fixtures/upstream/" not in name or match is None:
                continue
            number = int(match.group(2) or 0)
            if (number % 2 == 0) != (half == "check"):
                continue
            text = archive.read(name).decode("utf-8")
            # Browsers only: the fixtures also hold apps and HTTP libraries on those devices.
            agents += [agent for agent, rest in yaml_user_agents(text) if re.search(r"\n\s*client:\s*\n\s*type:\s*browser", rest)]
    return agents


def load_negatives(work):
    """Browser user agents from fake-useragent and uap-core's device tests, lowercased (spiders left out)."""
    agents = set()
    wheel = download(*FAKE_USERAGENT, work)
    for line in wheel_file(wheel, "browsers.jsonl").splitlines():
        if line.strip():
            agents.add(json.loads(line)["useragent"].lower())
    count = len(agents)
    agents.update(agent.lower() for agent in device_detector_browsers(work, "check"))
    # uap-core's device tests name every bot's device family "Spider".
    uap = glob.glob("/usr/share/uap-core/tests/test_device.yaml") + glob.glob(os.path.join(work, "**", "tests", "test_device.yaml"), recursive=True)
    if uap:
        text = open(uap[0], encoding="utf-8").read()
        for block in re.split(r"\n\s*-\s+user_agent_string:", text)[1:]:
            agent = block.strip().splitlines()[0].strip()
            if len(agent) >= 2 and agent[0] == agent[-1] and agent[0] in "'\"":
                agent = agent[1:-1].replace("''", "'")
            family = re.search(r"\n\s*family:\s*['\"]?([^'\"\n]*)", block)
            if family is None or family.group(1).strip() == "Spider":
                continue
            agents.add(agent.lower())
    else:
        print("uap-core's tests not found (apt-get install uap-core): checking against fake-useragent only", file=sys.stderr)
    return sorted(agents), count


def found_in(token, agent):
    """The classifier's own rule: a substring, and with a leading | at the start of a word."""
    if not token.startswith("|"):
        return token in agent
    bare = token[1:]
    start = agent.find(bare)
    while start >= 0:
        if start == 0 or not agent[start - 1].isalnum():
            return True
        start = agent.find(bare, start + 1)
    return False


def build(work, version):
    wheel = download(CRAWLER_USER_AGENTS, version, work)
    entries = json.loads(wheel_file(wheel, "crawler-user-agents.json"))
    licence = wheel_file(wheel, "/LICENSE")
    negatives, fake_count = load_negatives(work)
    rows, skipped, refused = {}, [], []

    def add(kind, name, token, source):
        bare = token.lstrip("|")
        if len(bare) < MINIMUM_TOKEN or not all(32 <= ord(c) < 127 for c in bare) or bare != bare.lower():
            skipped.append((token, "too short or not a token"))
            return
        hit = next((agent for agent in negatives if found_in(token, agent)), None)
        if hit is not None:
            refused.append((token, hit[:120]))
            return
        rows.setdefault(token, (kind, name, token, source))

    # Ours first: they win over the public list's class for the same token, and a "person" token is one the list
    # must not have (it is found in people's browsers or apps that the corpora lack).
    people = set()
    for line in open(OWN, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        kind, name, token, reason = line.split("\t")
        if kind == "person":
            people.add(token.lower())
            continue
        if kind not in CLASSES:
            sys.exit(f"{OWN}: unknown class {kind!r}")
        add(kind, name, token.lower(), "ferry")
    for entry in entries:
        tags = entry.get("tags") or []
        kind = next((cls for tag, cls in CLASS_BY_TAG if tag in tags), "crawler")
        tokens = alternatives(entry["pattern"])
        if tokens is None:
            skipped.append((entry["pattern"], "not a simple pattern"))
            continue
        for token in tokens:
            if token in people:
                refused.append((token, "a person's user agent (scripts/user-agents-own.tsv)"))
                continue
            add(kind, name_for(token), token, "crawler-user-agents")
    return sorted(rows.values(), key=lambda row: (row[0], row[2])), skipped, refused, len(negatives), fake_count, version, licence


def render(rows, negatives, fake_count, version, licence):
    out = io.StringIO()
    out.write("// Generated by scripts/update-user-agents.py: edit scripts/user-agents-own.tsv or run the script, not this file.\n")
    out.write("//\n")
    out.write(f"// Sources: crawler-user-agents {version} (https://github.com/monperrus/crawler-user-agents, source\n")
    out.write("// \"crawler-user-agents\" below), under the licence that follows; and Ferry's own list (source \"ferry\").\n")
    out.write("//\n")
    for line in licence.strip().splitlines():
        out.write(("// " + line).rstrip() + "\n")
    out.write("//\n")
    out.write(f"// Checked against {negatives} browser user agents: fake-useragent {FAKE_USERAGENT[1]} (Apache-2.0, {fake_count} of them)\n")
    out.write("// uap-core's device tests without their spiders (Apache-2.0), and the browsers of half of Matomo Device Detector's\n")
    out.write("// fixtures (device_detector on PyPI, read only): no token below is found in any of them.\n")
    out.write("\n")
    out.write("/// Bot tokens for `UserAgentClassifier`, one per line: class, name, token and source, separated by tabs.\n")
    out.write("/// Classes: unfurler (link previews), crawler, ai, monitor, library (HTTP clients), headless, scanner (of the\n")
    out.write("/// internet), mail (email security services opening a message's links). A token is lowercase and matched as a\n")
    out.write("/// substring; a leading `|` means it must start a word.\n")
    out.write("enum UserAgentTokens {\n")
    out.write("    static let table = \"\"\"\n")
    for row in rows:
        line = "\\t".join(row)
        if "\\" in "".join(row).replace("\\t", "") or '"""' in line:
            sys.exit(f"a token that cannot be written into the table: {row!r}")
        out.write("        " + line + "\n")
    out.write("        \"\"\"\n")
    out.write("}\n")
    return out.getvalue()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", help="where the downloaded packages are kept (a temporary folder by default)")
    parser.add_argument("--version", default=DEFAULT_VERSION, help=f"crawler-user-agents version ({DEFAULT_VERSION})")
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed file is not what this makes")
    parser.add_argument("--report", action="store_true", help="list the patterns skipped and the tokens refused")
    arguments = parser.parse_args()
    work = arguments.work or tempfile.mkdtemp(prefix="ferry-user-agents-")
    os.makedirs(work, exist_ok=True)
    rows, skipped, refused, negatives, fake_count, version, licence = build(work, arguments.version)
    text = render(rows, negatives, fake_count, version, licence)
    if arguments.report:
        for pattern, reason in skipped:
            print(f"skipped\t{reason}\t{pattern}")
        for token, agent in refused:
            print(f"refused\t{token}\tfound in: {agent}")
    counts = {}
    for row in rows:
        counts[row[0]] = counts.get(row[0], 0) + 1
    summary = ", ".join(f"{kind} {count}" for kind, count in sorted(counts.items()))
    print(f"{len(rows)} tokens ({summary}); {len(skipped)} patterns skipped, {len(refused)} tokens refused "
          f"(found in one of {negatives} browser user agents)", file=sys.stderr)
    if arguments.check:
        current = open(OUTPUT, encoding="utf-8").read() if os.path.exists(OUTPUT) else ""
        if current != text:
            print(f"{OUTPUT} is not what the sources give: run scripts/update-user-agents.py", file=sys.stderr)
            return 1
        return 0
    os.makedirs(os.path.dirname(OUTPUT), exist_ok=True)
    with open(OUTPUT, "w", encoding="utf-8") as handle:
        handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
