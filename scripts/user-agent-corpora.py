#!/usr/bin/env python3
"""Writes the corpora UserAgentBench reads: user agents nobody at Ferry wrote, one per line, by what they should be.

  bots-device-detector-<category>.txt  Matomo Device Detector's bot fixtures (device_detector on PyPI, LGPL-3.0; read
                                       here, never copied into Ferry), by the fixture's category
  bots-device-detector-http-library.txt  the HTTP libraries of Device Detector's other fixtures (client type library),
                                       but Android's (below)
  people-fake-useragent.txt            fake-useragent's browsers (PyPI, Apache-2.0)
  people-uap-core.txt                  the browsers among uap-core's device tests (Debian's uap-core, Apache-2.0):
                                       headers that start as a browser's do ("Mozilla/", "Opera"), spiders left out;
                                       the rest of that file are apps' own HTTP clients ("(samsung/GT-I5800)API 7…")
  people-device-detector.txt           the browsers of the half of Device Detector's phone, tablet and desktop
                                       fixtures that update-user-agents.py does not check its tokens against, but
                                       Android's HTTP library, which Device Detector names "Android Browser":
  bots-android-http-client.txt         those "Dalvik/2.1.0 (Linux; U; Android …)" headers, which Ferry takes for an
                                       app's HTTP client (as it does okhttp and a bare CFNetwork)

Usage: scripts/user-agent-corpora.py OUT_DIR [--work DIR]   (pip downloads what is missing into --work)
Then:  FERRY_BENCHMARKS=1 swift run -c release UserAgentBench --bots OUT_DIR/bots-*.txt ... --people OUT_DIR/people-*.txt
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

import importlib.util

spec = importlib.util.spec_from_file_location("update", os.path.join(os.path.dirname(os.path.abspath(__file__)), "update-user-agents.py"))
update = importlib.util.module_from_spec(spec)
spec.loader.exec_module(update)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--work")
    arguments = parser.parse_args()
    work = arguments.work or tempfile.mkdtemp(prefix="ferry-user-agents-")
    os.makedirs(arguments.out, exist_ok=True)
    written = {}

    wheel = update.download("device-detector", "6.5.1", work)
    with zipfile.ZipFile(wheel) as archive:
        bots = {}
        for name in archive.namelist():
            if "/tests/fixtures/upstream/" not in name or not name.endswith(".yml"):
                continue
            text = archive.read(name).decode("utf-8")
            base = os.path.basename(name)
            if base != "bots.yml":
                libraries = [agent for agent, rest in update.yaml_user_agents(text)
                             if re.search(r"\n\s*client:\s*\n\s*type:\s*library", rest) and not agent.startswith("Dalvik/")]
                bots.setdefault("http-library", []).extend(libraries)
            if base == "bots.yml":
                for agent, rest in update.yaml_user_agents(text):
                    category = re.search(r"\n\s*category:\s*(.*)", rest)
                    key = (category.group(1).strip().strip("'\"") if category else "") or "uncategorised"
                    bots.setdefault(re.sub(r"[^a-z0-9]+", "-", key.lower()).strip("-"), []).append(agent)

        for category, agents in bots.items():
            written[f"bots-device-detector-{category}.txt"] = agents
        browsers = update.device_detector_browsers(work, "measure")
        written["people-device-detector.txt"] = [agent for agent in browsers if not agent.startswith("Dalvik/")]
        written["bots-android-http-client.txt"] = [agent for agent in browsers if agent.startswith("Dalvik/")]

    negatives, fake_count = update.load_negatives(work)
    wheel = update.download(*update.FAKE_USERAGENT, work)
    fake = [json.loads(line)["useragent"] for line in update.wheel_file(wheel, "browsers.jsonl").splitlines() if line.strip()]
    written["people-fake-useragent.txt"] = sorted(set(fake))
    uap = glob.glob("/usr/share/uap-core/tests/test_device.yaml")
    if uap:
        agents = []
        text = open(uap[0], encoding="utf-8").read()
        for block in re.split(r"\n\s*-\s+user_agent_string:", text)[1:]:
            agent = block.strip().splitlines()[0].strip()
            if len(agent) >= 2 and agent[0] == agent[-1] and agent[0] in "'\"":
                agent = agent[1:-1].replace("''", "'")
            family = re.search(r"\n\s*family:\s*['\"]?([^'\"\n]*)", block)
            if family is not None and family.group(1).strip() != "Spider" and re.match(r"(Mozilla/|Opera)", agent):
                agents.append(agent)
        written["people-uap-core.txt"] = sorted(set(agents))
    for name, agents in sorted(written.items()):
        agents = [a for a in dict.fromkeys(agents) if a and "\n" not in a]
        with open(os.path.join(arguments.out, name), "w", encoding="utf-8") as handle:
            handle.write("\n".join(agents) + "\n")
        print(f"{name}: {len(agents)}")


if __name__ == "__main__":
    main()
