"""The composite action (action.yml) and the example Ozone workflow (docs/ozone-workflow.yml)
parse as YAML and have the keys GitHub needs and the ones this repository relies on.

Usage: python3 ci/action_check.py  (from the repository root; exits 1 with the problems).
"""

import sys

import yaml

problems = []


def need(cond, what):
    if not cond:
        problems.append(what)


def load(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


action = load("action.yml")
for key in ("name", "description", "inputs", "runs"):
    need(isinstance(action, dict) and key in action, f"action.yml: no `{key}`")
inputs = action.get("inputs") or {}
for name in ("ozone-path", "base", "on-touch"):
    need(
        name in inputs and inputs[name].get("description"),
        f"action.yml: no described input `{name}`",
    )
need(inputs.get("base", {}).get("required") is True, "action.yml: `base` is not required")
need(inputs.get("on-touch", {}).get("default") == "fail", "action.yml: `on-touch` does not default to fail")
runs = action.get("runs") or {}
need(runs.get("using") == "composite", "action.yml: not a composite action")
steps = runs.get("steps") or []
need(steps, "action.yml: no steps")
for i, step in enumerate(steps):
    need("run" in step or "uses" in step, f"action.yml: step {i} neither runs nor uses")
    need("run" not in step or "shell" in step, f"action.yml: step {i} runs without a shell")
cache = [s for s in steps if str(s.get("uses", "")).startswith("actions/cache@")]
need(len(cache) == 1, "action.yml: no actions/cache step")
paths = str(cache[0].get("with", {}).get("path", "")) if cache else ""
need("~/.cargo" in paths and "target" in paths, "action.yml: the cache holds not ~/.cargo and target")
runs_text = " ".join(str(s.get("run", "")) for s in steps)
need("cargo build --release" in runs_text, "action.yml: does not build ozone-ha-check")
need("ci/cite-pr.sh" in runs_text, "action.yml: does not run ci/cite-pr.sh")
for s in steps:
    # Inputs reach scripts through the environment, never pasted into them.
    need("${{" not in str(s.get("run", "")), f"action.yml: an expression inside the script of `{s.get('name')}`")

workflow = load("docs/ozone-workflow.yml")
# YAML 1.1 reads the key `on` as true.
triggers = workflow.get("on", workflow.get(True))
need(isinstance(triggers, dict) and "pull_request" in triggers, "docs/ozone-workflow.yml: not on pull_request")
jobs = workflow.get("jobs") or {}
need(jobs, "docs/ozone-workflow.yml: no jobs")
uses_action = []
for name, job in jobs.items():
    need("runs-on" in job, f"docs/ozone-workflow.yml: job {name} has no runs-on")
    for step in job.get("steps") or []:
        if str(step.get("uses", "")).split("@")[0].endswith("/ozone-ha-check"):
            uses_action.append(step)
need(len(uses_action) == 1, "docs/ozone-workflow.yml: does not use the action once")
for step in uses_action:
    given = set((step.get("with") or {}).keys())
    need(given <= set(inputs), f"docs/ozone-workflow.yml: inputs the action lacks: {sorted(given - set(inputs))}")
    need("base" in given, "docs/ozone-workflow.yml: no base given")

for p in problems:
    print(p)
print(f"action_check: action.yml ({len(steps)} steps) and docs/ozone-workflow.yml: {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
