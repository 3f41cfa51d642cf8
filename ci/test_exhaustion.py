"""Tests of ci/exhaustion.py's summaries: the proven spaces and the regressions against a
reference run. Run: python3 -m unittest discover -s ci -p 'test_*.py'"""
import copy
import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

from exhaustion import frontier, join, measure, regressions

HERE = os.path.dirname(os.path.abspath(__file__))

# A stand-in for ozone-ha-check: `list --json` names two holding cases and a violating one;
# `check` holds every case, exhausted, and logs the case it was asked for.
FAKE = """#!/usr/bin/env python3
import json, sys
a = sys.argv[1:]
if a[0] == "list":
    print(json.dumps([{"scenario": "s", "expected": [
        {"variant": "fixed", "plan": "p", "expected": "holds"},
        {"variant": "other", "plan": "p", "expected": "holds"},
        {"variant": "buggy", "plan": "p", "expected": "violates"}]}]))
else:
    open(sys.argv[0] + ".log", "a").write(" ".join(a[1:6]) + "\\n")
    print(json.dumps([{"verdict": "held", "executions": 3, "exhausted": True,
                       "elapsed_ms": 1, "states": 4, "final_states": 2}]))
"""


def run(bound, exhausted, verdict="held", space=None):
    r = {"bound": bound, "verdict": verdict, "executions": 10, "exhausted": exhausted,
         "ms": 1, "first_violation": None, "points": 1.0}
    if space:
        r["requests"], r["faults"] = space
    return r


def case(runs, proven=None, plan="generated", expected="holds"):
    row = {"scenario": "s", "variant": "fixed", "plan": plan, "expected": expected,
           "runs": runs}
    if proven is not None:
        row["proven"] = proven
    return row


def space(requests, faults):
    return {"requests": requests, "faults": faults}


class Frontier(unittest.TestCase):
    def test_a_vacuous_space_is_not_proven_and_a_covered_one_is_not_listed(self):
        runs = [run("stateful", False),
                run("stateful", True, "vacuous", (1, 0)),
                run("stateful", True, "vacuous", (1, 1)),
                run("stateful", True, "held", (2, 0)),
                run("stateful", True, "held", (2, 1)),
                run("stateful", True, "held", (3, 0)),
                run("stateful", False, "held", (3, 1))]
        self.assertEqual(frontier(runs), [space(2, 1), space(3, 0)])
        self.assertEqual(frontier(runs[:3]), [])

    def test_join_derives_the_proven_spaces_again(self):
        row = case([run("stateful", False), run("stateful", True, "vacuous", (1, 0))],
                   proven=[space(1, 0)])
        vacuous_default = case([run("stateful", True, "vacuous")], proven=[space(3, 1)])
        vacuous_default["variant"] = "other"
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "a.json")
            json.dump([row, vacuous_default], open(path, "w"))
            joined = join([path])
        self.assertEqual(joined[0]["proven"], [])
        self.assertEqual(joined[1]["proven"], [])


class Filters(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.binary = os.path.join(self.dir.name, "ohc")
        with open(self.binary, "w") as f:
            f.write(FAKE)
        os.chmod(self.binary, os.stat(self.binary).st_mode | stat.S_IEXEC)

    def tearDown(self):
        self.dir.cleanup()

    def checked(self):
        with open(self.binary + ".log") as f:
            return f.read().splitlines()

    def test_a_variant_filter_runs_only_that_variants_cases(self):
        rows = measure(self.binary, self.binary, 5, set(), "holding", lambda _: None,
                       loom=False, plans={"p"}, flags=["--source-sets"], variants={"fixed"})
        self.assertEqual([(r["variant"], r["plan"]) for r in rows], [("fixed", "p")])
        self.assertEqual(rows[0]["runs"][0]["final_states"], 2)
        self.assertTrue(rows[0]["runs"][0]["sources"])
        self.assertEqual(self.checked(), ["s --variant fixed --plan p"])

    def test_filters_that_select_no_case_fail_the_run(self):
        out = subprocess.run([sys.executable, os.path.join(HERE, "exhaustion.py"), self.binary,
                              os.path.join(self.dir.name, "out.json"), "--no-loom",
                              "--stateful", self.binary, "--variant", "renamed"],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 1, out.stderr)
        self.assertIn("no case matches", out.stderr)
        self.assertFalse(os.path.exists(self.binary + ".log"), "nothing was checked")


class LongReference(unittest.TestCase):
    def test_each_long_case_was_a_holding_case_proven_as_the_nightly_job_runs_it(self):
        # The nightly long-proofs job compares each case with this file: a row whose stateful
        # run was not exhausted (or was not run as the job runs it) would guard nothing.
        with open(os.path.join(HERE, "..", "bench", "exhaustion-long.json")) as f:
            rows = json.load(f)
        self.assertTrue(rows)
        for row in rows:
            runs = [r for r in row["runs"] if r["bound"] == "stateful"]
            self.assertEqual(row["expected"], "holds", row)
            self.assertEqual(len(runs), 1, row)
            self.assertEqual((runs[0]["verdict"], runs[0]["exhausted"]), ("held", True), row)
            self.assertTrue(runs[0].get("alone") and runs[0].get("sources"), row)


class Regressions(unittest.TestCase):
    def setUp(self):
        self.reference = [case([run("stateful", True), run("none", True)], proven=[space(4, 2)],
                               plan="p"),
                          case([run("stateful", False), run("stateful", True, "held", (2, 1))],
                               proven=[space(2, 1)])]

    def test_the_same_run_is_no_regression(self):
        self.assertEqual(regressions(copy.deepcopy(self.reference), self.reference), [])

    def test_a_case_no_longer_exhausted_is_a_regression_for_each_engine(self):
        now = copy.deepcopy(self.reference)
        now[0]["runs"][0]["exhausted"] = False
        now[0]["runs"][1]["exhausted"] = False
        found = regressions(now, self.reference)
        self.assertEqual(len(found), 2, found)
        self.assertIn("the stateful engine exhausted it before", found[0])
        self.assertIn("loom unbounded exhausted it before", found[1])

    def test_a_proven_space_no_longer_covered_is_a_regression(self):
        now = copy.deepcopy(self.reference)
        now[1]["proven"] = [space(2, 0), space(1, 1)]
        found = regressions(now, self.reference)
        self.assertEqual(len(found), 1, found)
        self.assertIn("2 requests and 1 fault was proven before", found[0])
        now[1]["proven"] = [space(3, 1)]
        self.assertEqual(regressions(now, self.reference), [])

    def test_cases_not_in_the_reference_and_violating_cases_are_not_compared(self):
        now = copy.deepcopy(self.reference)
        now[0]["runs"][0]["exhausted"] = False
        now[0]["plan"] = "q"
        self.assertEqual(regressions(now, self.reference), [])
        now[0]["plan"] = "p"
        now[0]["expected"] = "violates"
        self.assertEqual(regressions(now, self.reference), [])


if __name__ == "__main__":
    unittest.main()
