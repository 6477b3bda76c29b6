"""A stand-in for the PyPI package jsonpath-python, written for skolkit's
compatibility run (compat/sdk_run.py) where PyPI cannot be reached.

The vendor's SDK uses it only for its pagination hint, JSONPath("$.a.b").parse(body):
this module supports exactly that form (a dotted path from the root) and
returns the list of matches, as jsonpath-python does ([] when the path is absent).
"""


class JSONPath:
    def __init__(self, expr):
        if not expr.startswith("$"):
            raise ValueError("only paths from the root ($.a.b) are supported: %r" % expr)
        self.keys = [k for k in expr[1:].split(".") if k]

    def parse(self, obj):
        for k in self.keys:
            if not isinstance(obj, dict) or k not in obj:
                return []
            obj = obj[k]
        return [obj]
