"""Tests of ci/generated_table.py's gate over the nightly's joined generated reports.
Run: python3 -m unittest discover -s ci -p 'test_*.py'"""
import contextlib
import io
import json
import os
import tempfile
import unittest

from generated_table import arguments, gate, main


def report(scenario, variant, expected, verdict, exhausted):
    return {"scenario": scenario, "variant": variant, "expected": expected,
            "verdict": verdict, "exhausted": exhausted, "executions": 10,
            "elapsed_ms": 1000}


class Gate(unittest.TestCase):
    def test_held_and_exhausted_and_violated_pass(self):
        reports = [report("a", "fixed", "holds", "held", True),
                   report("a", "buggy", "violates", "violated", False)]
        self.assertEqual(gate(reports, set()), [])

    def test_a_holding_case_left_unexhausted_fails_outside_the_list(self):
        reports = [report("a", "fixed", "holds", "held", False)]
        [line] = gate(reports, set())
        self.assertIn("a fixed: held but not exhausted", line)
        self.assertEqual(gate(reports, {"a"}), [])

    def test_a_wrong_or_vacuous_verdict_fails_even_beyond_reach(self):
        reports = [report("a", "fixed", "holds", "vacuous", True),
                   report("a", "other", "holds", "violated", False),
                   report("a", "buggy", "violates", "held", True)]
        found = gate(reports, {"a"})
        self.assertEqual(len(found), 3, found)
        self.assertTrue(any("a buggy: expected to violate, held" in f for f in found))

    def test_a_scenario_beyond_reach_that_was_exhausted_must_leave_the_list(self):
        reports = [report("a", "fixed", "holds", "held", True),
                   report("a", "other", "holds", "held", True)]
        [line] = gate(reports, {"a"})
        self.assertIn("take it off the list", line)
        reports[1]["exhausted"] = False
        self.assertEqual(gate(reports, {"a"}), [])

    def test_a_scenario_beyond_reach_with_no_holding_case_is_reported(self):
        [line] = gate([report("b", "fixed", "holds", "held", True)], {"a"})
        self.assertIn("no holding case of it ran", line)

    def test_a_case_at_other_bounds_expects_nothing(self):
        self.assertEqual(gate([report("a", "fixed", "-", "vacuous", True)], set()), [])

    def test_the_table_sums_states_and_final_states_over_a_scenarios_rows(self):
        rows = [dict(report("a", v, "holds", "held", True), plan="generated",
                     engine="stateful", bounds={"requests": 2, "faults": 1},
                     states=states, final_states=finals)
                for v, states, finals in [("fixed", 120, 7), ("other", 30, 5)]]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "joined.json")
            with open(path, "w") as f:
                json.dump(rows, f)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = main(path)
        self.assertEqual(code, 0)
        table = out.getvalue()
        self.assertIn("| states | final states | executions |", table)
        self.assertIn("| a | fixed | at most 2 requests and 1 faults | None | 1/1 | 120 | 7 | 10 |",
                      table)
        self.assertIn("| **a** | all 2 | | | | 150 | 12 | 20 |", table)

    def test_arguments(self):
        self.assertEqual(arguments(["j.json"]), ("j.json", ()))
        self.assertEqual(arguments(["j.json", "--beyond-reach", "a,b"]), ("j.json", ("a", "b")))
        with self.assertRaises(SystemExit):
            arguments(["j.json", "--other", "a"])


if __name__ == "__main__":
    unittest.main()
