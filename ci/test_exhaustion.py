"""Tests of ci/exhaustion.py's summaries: the proven spaces and the regressions against a
reference run. Run: python3 -m unittest discover -s ci -p 'test_*.py'"""
import copy
import json
import os
import tempfile
import unittest

from exhaustion import frontier, join, regressions


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
