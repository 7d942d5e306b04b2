"""Regenerates pyjson_mutations.json: more ground truth for TestPyJSONErrorMatchesPython.

Run with CPython 3.8 to 3.12:  python3 gen_pyjson_mutations.py > pyjson_mutations.json
Valid documents mutated at random (seeded: the output is reproducible) by
deleting, inserting or cutting characters; each entry is the str() of the
json.JSONDecodeError json.loads(doc) raises, or "" when it parses.
"""
import json
import random
import sys

random.seed(7)
BASE = [
    '{"a": [1, 2.5e-3, {"b": null}], "c": "x\\u00e9y"}',
    '[true, false, null, -0.5E+2, "s"]',
    '{"k": {"n": [1,2,[3,{"z":"w"}]]}}',
    '"a\\"b\\\\c"',
    '  {\n "a" : 1 ,\n "b":[ ]\n}  ',
    '[NaN, Infinity, -Infinity]',
    '"\\ud83d\\ude00"',
    '{"city": "Paris", "days": 3}',
]
ALPHABET = list('{}[]":,.-+eE0123456789 \n\t\\uanlfrtsINy\x01\u00e9\U0001F600\'')
docs = set()
while len(docs) < 600:
    s = list(random.choice(BASE))
    for _ in range(random.randint(1, 3)):
        op = random.random()
        i = random.randrange(len(s) + 1)
        if op < 0.4 and s:
            del s[min(i, len(s) - 1)]
        elif op < 0.8:
            s.insert(i, random.choice(ALPHABET))
        else:
            s = s[:i]
    docs.add(''.join(s))
out = []
for doc in sorted(docs):
    try:
        json.loads(doc)
        out.append({"doc": doc, "error": ""})
    except json.JSONDecodeError as exc:
        out.append({"doc": doc, "error": str(exc)})
json.dump(out, sys.stdout, indent=0, ensure_ascii=True)
print()
