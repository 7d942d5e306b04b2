"""Regenerates pyjson_errors.json: ground truth for TestPyJSONErrorMatchesPython.

Run with CPython 3.8 to 3.12:  python3 gen_pyjson_errors.py > pyjson_errors.json
Each entry is the str() of the json.JSONDecodeError json.loads(doc) raises,
or "" when it parses. (3.13+ words trailing commas differently: "Illegal
trailing comma before end of object/array".)
"""
import json
import sys

DOCS = [
    "nope", "", " ", "not json", "-NaN", "{bad", "{a}", '{"a" 1}', '{"a":1 "b":2}', "[1 2]",
    '{"a":1,}', "[1,]", "[", "{", '{"a":', '{"a"', '"abc', '"a\\', '"a\\x"', '"a\u0001b"',
    '"line\nbreak"', '"\\u12"', '"\\u1234', '"\\u123"', '"\\uZZZZ"', '"\\ud800\\uZZZZ"',
    '"\\ud800\\u12"', '"\\ud800"', '"\\ud83d\\ude00"', "1 2", '{"a":1}x', "[1]]", "01", "1.", "-", "-x",
    "1e", "1e+", "1.5e-3", ".5", "tru", "True", "NaN", "-Infinity", "Infinity",
    "[NaN, -Infinity]", "\ufeff{}", '{"a":1}\n\n x', '{\n  "a": 1,\n  "b": 2\n  "c": 3\n}',
    '{"\u00e9":"\u00fc" x}', '{"\U0001F600": 1,, }', "[1,\t\r\n]", '  {"k": [1, 2, {"x": nul}]}',
    "{'a': 1}", 'Sure! Here is the JSON: {"a": 1}', '```json\n{"a": 1}\n```', '{"a": "b\tc"}',
    "\x00", "[] ", " \n[]\n", '"\\/\\b\\f\\n\\r\\t\\"\\\\"', '{"a":-}', "-0", "-01", "1E5",
    "[1e]", '{"a" : 1 , "b" : [ ] }', '{"a": 1} // done', "[1, 2, 3", '{"a": [1, 2}',
    '{"a": {"b": 1}', '{"city": "Paris", "unit": "c"', " \u00e9", "\u00e9t\u00e9\n\u00e9",
    '{"a": 2e400}', "[-]", "[--1]", "[1.e5]", "[0x10]", "[+1]", "[.1]", '{"a":1}\n\n',
]

print("# CPython %d.%d" % sys.version_info[:2], file=sys.stderr)
out = []
for doc in DOCS:
    try:
        json.loads(doc)
        out.append({"doc": doc, "error": ""})
    except json.JSONDecodeError as exc:
        out.append({"doc": doc, "error": str(exc)})
json.dump(out, sys.stdout, indent=1)
print()
