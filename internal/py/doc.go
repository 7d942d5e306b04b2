// Package py holds every Python behaviour benchserve reproduces for drop-in
// fidelity with the reference (a Python program), so each rule is written
// once: float repr and format(f, "g") (float.go), round (round.go),
// statistics.mean and stdev (meanstdev.go), str() and repr() (str.go),
// int() and float() of a str (parse.go),
// truthiness (truth.go) and json.dumps' texts of strings and numbers
// (json.go). The formats built on them (the results payload's json.dumps,
// csv.DictWriter, tabulate) live in internal/resultio; the workload
// loader's str() and truth rules in workloads.
package py
