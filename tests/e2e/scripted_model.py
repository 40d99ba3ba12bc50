#!/usr/bin/env python3
"""The local model server of mock_model.py, answering from a script instead of its
built-in plans: the same wire formats (Anthropic, OpenAI, Ollama), the same --log and
--port-file.

--plans FILE is a JSON list of {"when": ["word", ...], "plan": {...}}: the first entry
whose words all appear in the user's request (case-insensitive) answers; "{echo_file}" in
any string of the plan becomes --echo-file. No match: a plan with no steps.
"""

import json
import sys

import mock_model


def scripted(entries):
    def plan_for(request_text, echo_file, cases=None, directory=""):
        text = request_text.lower()
        for e in entries:
            if all(w.lower() in text for w in e["when"]):
                raw = json.dumps(e["plan"]).replace("{echo_file}", echo_file.replace("\\", "\\\\"))
                return json.loads(raw)
        return {"reply": "I found nothing to do for that.", "steps": []}

    return plan_for


def main():
    argv = sys.argv[1:]
    if "--plans" not in argv:
        print("scripted_model.py: --plans FILE is required", file=sys.stderr)
        return 2
    i = argv.index("--plans")
    with open(argv[i + 1]) as f:
        entries = json.load(f)
    del argv[i : i + 2]
    mock_model.plan_for = scripted(entries)
    sys.argv = [sys.argv[0]] + argv
    return mock_model.main()


if __name__ == "__main__":
    sys.exit(main())
